"""Errors raised when a raw input is not what the pipeline expects."""


class DataError(ValueError):
    """Base class: a raw input file is unusable. The message names the file and what is wrong."""


class ChecksumError(DataError):
    """A file's sha256 differs from the recorded one (corrupt, truncated or modified)."""


class DataValidationError(DataError):
    """A file parsed but violates its schema: missing column, wrong dtype, out-of-range value, duplicate key."""


class MissingDataError(DataError, FileNotFoundError):
    """A required raw file is absent (restore it with `dvc pull --force data.dvc`)."""


def require_columns(df, columns, what: str, hint: str = "") -> None:
    """Raise :class:`DataValidationError` naming ``what`` and the missing columns if ``df`` lacks any.

    The one column check every analysis function uses on the frames it is given (``hint`` adds what
    else is expected, e.g. "plus a choice column").
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise DataValidationError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    columns = list(columns)
    from compendium.pipeline.cli import quote

    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataValidationError(
            f"{what}: missing column(s) {missing}; expected {columns}{hint} (the frame has {quote(list(df.columns))})"
        )
