"""A graph family whose module fails to import (it needs a package that is not there)."""

import sslviz_no_such_package  # noqa: F401

from sslviz.families import KNN


class Family(KNN):
    name = "broken"
