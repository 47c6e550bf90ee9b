"""novalite: an OpenStack-Nova-compatible compute cloud."""

__version__ = "0.1.0"
