"""A toy plug-in of sslviz: a Gaussian ε-ball graph family (``families``) and the harmonic
model with row-normalised weights solved as the paper writes it (``models``)."""
