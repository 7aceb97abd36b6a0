"""Nothing to report here."""


def identity(value):
    return value
