"""Errors raised when a raw input is not what the pipeline expects."""


class DataError(ValueError):
    """Base class: a raw input file is unusable. The message names the file and what is wrong."""


class ChecksumError(DataError):
    """A file's sha256 differs from the recorded one (corrupt, truncated or modified)."""


class DataValidationError(DataError):
    """A file parsed but violates its schema: missing column, wrong dtype, out-of-range value, duplicate key."""


class MissingDataError(DataError, FileNotFoundError):
    """A required raw file is absent (restore it with `dvc pull`)."""
