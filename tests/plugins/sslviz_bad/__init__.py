"""Three plug-ins that are wrong, each in one way (tests/plugin_helpers.BAD declares them):
one fails to import, one lacks a method, one takes a name already taken."""
