"""Length limits of free text that callers send: long enough for any honest use, short enough to be cheap. The
contract holds them, as the request models describe them."""

from hydrata_contract.requests.base import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH

__all__ = ["DESCRIPTION_MAX_LENGTH", "NAME_MAX_LENGTH"]
