"""A labeling model that lacks the one method a model must write, soft_labels."""

from sslviz.labeling import SoftLabelModel


class NoSoftLabels(SoftLabelModel):
    name = "lacking"
    label = "lacking"
    help = "a model without soft labels"
