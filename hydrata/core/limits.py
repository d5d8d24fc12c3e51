"""Length limits of free text that callers send: long enough for any honest use, short enough to be cheap."""

NAME_MAX_LENGTH = 200
DESCRIPTION_MAX_LENGTH = 5000
