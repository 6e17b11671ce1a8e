"""The release, recorded with every layer a store is given (store.versioning) and shown by `liuyao --version`."""
__version__ = "0.1.0"
