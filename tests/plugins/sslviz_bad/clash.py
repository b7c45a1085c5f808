"""A graph family that takes a name sslviz's own family has."""

from sslviz.families import KNN


class KNNAgain(KNN):
    name = "knn"
    label = "kNN again"
