"""One constraint vocabulary: parameters declared once, checked by one function, one wording.

A parameter's constraint is a value: ``Integer(low=1)``, ``Number(0, 1,
closed="neither")``, ``OneOf(("skip", "zero"))``, ``BOOLEAN``, ``optional(...)``
(None allowed as well), ``Text()``, ``Instance(EvalOptions)``, ``MAPPING``,
``CALLABLE``, ``SequenceOf(...)``, or several joined by ``|``. :func:`check`
gives the value the constraint makes of an accepted one (an int, a float, a
canonical name for an alias) and refuses any other with
:class:`~rankwise.exceptions.InvalidParameterError`, always worded alike: what,
expected, got (the value and its type), and the remedy where there is one::

    alpha must be a number in (0, 1), got 1.5 (float)
    ties must be one of 'trec', 'average', 'rank', 'worst', 'best', 'ascending', got 'tre'
    (str); did you mean 'trec'?

A check that the vocabulary cannot declare (two parameters together) words
its error with :func:`reject`, the same sentence. :func:`renamed` reads a
keyword that has a new name (a ``FutureWarning`` for one release).

This module imports nothing heavy: it sits with the exceptions, below every
other layer.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError

__all__ = [
    "BOOLEAN",
    "CALLABLE",
    "DEPRECATED",
    "LEVEL",
    "MAPPING",
    "NONE",
    "NON_NEGATIVE_INT",
    "POSITIVE_INT",
    "PROBABILITY",
    "AnyOf",
    "Constraint",
    "Instance",
    "Integer",
    "NotAcceptedError",
    "Number",
    "OneOf",
    "SequenceOf",
    "Text",
    "check",
    "check_fields",
    "loose",
    "optional",
    "reject",
    "renamed",
    "shown",
    "wording",
]

_SHOWN = 80
"""The longest repr a message shows of a value (longer ones end in ``...``)."""


def shown(value: Any) -> str:
    """A value as a message shows it: its repr (cut when long) and its type.

    Examples
    --------
    >>> shown(1.5), shown("x" * 100)[-12:]
    ('1.5 (float)', 'xxx... (str)')
    """
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} object>"
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 3] + "..."
    return f"{text} ({type(value).__name__})"


def wording(name: str, value: Any, expected: str, remedy: str | None = None,
            where: str | None = None) -> str:
    """The one sentence of every refused parameter: what, expected, got (value, type), remedy.

    Examples
    --------
    >>> wording("alpha", 1.5, "a number in (0, 1)")
    'alpha must be a number in (0, 1), got 1.5 (float)'
    >>> wording("k", "abc", "a finite number", "e.g. k=60", where="fusion method 'rrf'")
    "fusion method 'rrf': k must be a finite number, got 'abc' (str); e.g. k=60"
    """
    head = f"{where}: " if where else ""
    tail = f"; {remedy}" if remedy else ""
    return f"{head}{name} must be {expected}, got {shown(value)}{tail}"


def reject(name: str, value: Any, expected: str, *, remedy: str | None = None,
           where: str | None = None) -> NoReturn:
    """Raise the :class:`InvalidParameterError` of a refused parameter (see :func:`wording`)."""
    raise InvalidParameterError(wording(name, value, expected, remedy, where))


class NotAcceptedError(Exception):
    """A constraint refuses a value (with a remedy to say, if it knows one)."""

    def __init__(self, remedy: str | None = None) -> None:
        super().__init__(remedy)
        self.remedy = remedy


class Constraint:
    """What a parameter accepts: :attr:`expected` in words, :meth:`convert` to its value."""

    words: str | None = None

    @property
    def expected(self) -> str:
        """What is accepted, in words (after "must be")."""
        return self.words if self.words is not None else self.describe()

    def describe(self) -> str:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        """The value made of *value*; raises :class:`NotAcceptedError` when it is not accepted."""
        raise NotImplementedError

    def __or__(self, other: Constraint) -> AnyOf:
        return AnyOf(self, other)


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _bound(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _interval(low: float | None, high: float | None, closed: str) -> str:
    left = closed in ("both", "left")
    right = closed in ("both", "right")
    if low is not None and high is not None:
        return (f"in {'[' if left else '('}{_bound(low)}, {_bound(high)}"
                f"{']' if right else ')'}")
    if low is not None:
        return f"{'>=' if left else '>'} {_bound(low)}"
    if high is not None:
        return f"{'<=' if right else '<'} {_bound(high)}"
    return ""


def _inside(value: float, low: float | None, high: float | None, closed: str) -> bool:
    if low is not None and (value < low or (value == low and closed not in ("both", "left"))):
        return False
    return not (high is not None and (value > high or (
        value == high and closed not in ("both", "right"))))


class Integer(Constraint):
    """An integer (not a bool), in an interval: ``Integer(low=1)`` is a positive integer.

    ``text=True`` reads an integer's text (the command line gives text);
    ``floats=True`` takes a float that is a whole number (2.0).

    Examples
    --------
    >>> Integer(low=1).expected, Integer(low=0).expected, Integer(0, 17).expected
    ('a positive integer', 'a non-negative integer', 'an integer in [0, 17]')
    >>> check("folds", 1, Integer(low=2))
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: folds must be an integer >= 2, got 1 (int)
    """

    def __init__(self, low: int | None = None, high: int | None = None, *,
                 closed: str = "both", text: bool = False, floats: bool = False,
                 words: str | None = None) -> None:
        self.low, self.high, self.closed, self.words = low, high, closed, words
        self.text, self.floats = text, floats

    def describe(self) -> str:
        if self.high is None and self.closed in ("both", "left"):
            if self.low == 1:
                return "a positive integer"
            if self.low == 0:
                return "a non-negative integer"
        bounds = _interval(self.low, self.high, self.closed)
        return f"an integer {bounds}" if bounds else "an integer"

    def convert(self, value: Any) -> int:
        number: Any = value
        if isinstance(value, str) and self.text:
            try:
                number = int(value.strip())
            except ValueError:
                raise NotAcceptedError from None
        elif (self.floats and isinstance(value, numbers.Real) and not isinstance(value, bool)
              and not isinstance(value, numbers.Integral)):
            as_float = float(value)
            if not math.isfinite(as_float) or int(as_float) != as_float:
                raise NotAcceptedError
            number = int(as_float)
        if not _is_integer(number) or not _inside(number, self.low, self.high, self.closed):
            raise NotAcceptedError
        return int(number)


class Number(Constraint):
    """A real number (not a bool, never NaN), in an interval; text too with ``text=True``.

    ``finite=True`` refuses the infinities; ``as_float=False`` keeps an int an
    int (and reads ``"10"`` as 10).

    Examples
    --------
    >>> Number(0, 1, closed="neither").expected, Number(low=0, finite=True).expected
    ('a number in (0, 1)', 'a finite number >= 0')
    >>> check("alpha", 1.5, Number(0, 1, closed="neither"))
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: alpha must be a number in (0, 1), got 1.5 (float)
    """

    def __init__(self, low: float | None = None, high: float | None = None, *,
                 closed: str = "both", finite: bool = False, text: bool = False,
                 as_float: bool = True, nan_remedy: str | None = None,
                 words: str | None = None) -> None:
        self.low, self.high, self.closed = low, high, closed
        self.finite, self.text, self.as_float = finite, text, as_float
        self.nan_remedy, self.words = nan_remedy, words

    def describe(self) -> str:
        if self.low == 0 and self.high is None and self.closed in ("neither", "right"):
            return "a finite positive number" if self.finite else "a positive number"
        bounds = _interval(self.low, self.high, self.closed)
        head = "a finite number" if self.finite else "a number"
        return f"{head} {bounds}" if bounds else head

    def convert(self, value: Any) -> Any:
        number: Any = value
        if isinstance(value, str) and self.text:
            stripped = value.strip()
            try:
                number = int(stripped) if not self.as_float else float(stripped)
            except ValueError:
                try:
                    number = float(stripped)
                except ValueError:
                    raise NotAcceptedError from None
        elif isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise NotAcceptedError
        try:
            as_float = float(number)
        except (TypeError, ValueError, OverflowError):
            raise NotAcceptedError from None
        if math.isnan(as_float):
            raise NotAcceptedError(self.nan_remedy)
        if (self.finite and math.isinf(as_float)) or not _inside(
                as_float, self.low, self.high, self.closed):
            raise NotAcceptedError
        if self.as_float:
            return as_float
        return int(number) if _is_integer(number) else as_float


def loose(text: str) -> str:
    """A name as the vocabularies with aliases compare it: lower case, ``-`` for ``_`` and spaces.

    Examples
    --------
    >>> loose(" Randomised_Tukey HSD ")
    'randomised-tukey-hsd'
    """
    return "-".join(text.strip().lower().replace("_", "-").split())


class OneOf(Constraint):
    """One of a vocabulary (None may be one of it); aliases name the same choice.

    With *fold* (e.g. :func:`loose`), a name is compared after folding, so
    case and separators do not matter; the canonical choice is returned.

    Examples
    --------
    >>> check("missing", "zero", OneOf(("skip", "zero")))
    'zero'
    >>> check("correction", "BH", OneOf(("holm", "benjamini-hochberg"),
    ...                                 aliases={"bh": "benjamini-hochberg"}, fold=loose))
    'benjamini-hochberg'
    >>> check("missing", "zeros", OneOf(("skip", "zero")))
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: missing must be 'skip' or 'zero', got 'zeros' \
(str); did you mean 'zero'?
    """

    def __init__(self, choices: Iterable[Any], *, aliases: Mapping[str, Any] | None = None,
                 fold: Callable[[str], str] | None = None, words: str | None = None,
                 elsewhere: Mapping[str, str] | None = None) -> None:
        self.choices = tuple(choices)
        self.aliases = dict(aliases or {})
        self.fold = fold
        self.words = words
        # names of other tools' choices that are not these: what to say instead of a
        # suggestion (a near name may mean something else: hochberg is not benjamini-hochberg)
        self.elsewhere = {(fold(name) if fold is not None else name): text
                          for name, text in (elsewhere or {}).items()}
        self._names: dict[Any, Any] = {}
        for choice in self.choices:
            key = fold(choice) if fold is not None and isinstance(choice, str) else choice
            self._names[key] = choice
        for alias, choice in self.aliases.items():
            self._names.setdefault(fold(alias) if fold is not None else alias, choice)

    def describe(self) -> str:
        shown = [repr(choice) for choice in self.choices if choice is not None]
        listed = (shown[0] if len(shown) == 1 else " or ".join(shown) if len(shown) == 2
                  else "one of " + ", ".join(shown))
        others = [alias for alias in self.aliases if alias not in self.choices]
        if others:
            listed += f" (or an alias: {', '.join(map(repr, others))})"
        return listed + (", or None" if None in self.choices else "")

    def convert(self, value: Any) -> Any:
        key = value
        if isinstance(value, str) and self.fold is not None:
            key = self.fold(value)
        try:
            if key in self._names:
                return self._names[key]
        except TypeError:  # an unhashable value
            raise NotAcceptedError from None
        if isinstance(value, str) and key in self.elsewhere:
            raise NotAcceptedError(self.elsewhere[key])
        if isinstance(value, str):
            from rankwise.suggest import did_you_mean

            names = [str(n) for n in (*self.choices, *self.aliases) if isinstance(n, str)]
            hint = did_you_mean(value, names).removeprefix("; ")
            raise NotAcceptedError(hint or None)
        raise NotAcceptedError


class _Boolean(Constraint):
    """True or False (an integer too, read as its truth: 0 is False)."""

    def describe(self) -> str:
        return "True or False"

    def convert(self, value: Any) -> bool:
        if isinstance(value, (bool, numbers.Integral)) or type(value).__name__ == "bool_":
            return bool(value)
        raise NotAcceptedError


class _Nothing(Constraint):
    def describe(self) -> str:
        return "None"

    def convert(self, value: Any) -> None:
        if value is not None:
            raise NotAcceptedError


class Text(Constraint):
    """A str (``empty=False``: a non-empty one)."""

    def __init__(self, *, empty: bool = False, words: str | None = None) -> None:
        self.empty, self.words = empty, words

    def describe(self) -> str:
        return "a str" if self.empty else "a non-empty str"

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or (not value and not self.empty):
            raise NotAcceptedError
        return value


class Instance(Constraint):
    """An instance of one of *types* (``words`` names it: ``an EvalOptions``)."""

    def __init__(self, *types: type, words: str | None = None) -> None:
        self.types, self.words = types, words

    def describe(self) -> str:
        names = [t.__name__ for t in self.types]
        article = "an" if names[0][:1].lower() in "aeiou" else "a"
        return f"{article} {' or '.join(names)}"

    def convert(self, value: Any) -> Any:
        if not isinstance(value, self.types):
            raise NotAcceptedError
        return value


class _Mapping(Constraint):
    def describe(self) -> str:
        return "a dict"

    def convert(self, value: Any) -> Mapping[Any, Any]:
        if not isinstance(value, Mapping):
            raise NotAcceptedError
        return value


class _Callable(Constraint):
    def describe(self) -> str:
        return "a callable"

    def convert(self, value: Any) -> Any:
        if not callable(value):
            raise NotAcceptedError
        return value


class SequenceOf(Constraint):
    """A list (or tuple, array, any iterable but a str) of items of one constraint, as a tuple.

    Examples
    --------
    >>> check("weights", [1, 0.5], SequenceOf(Number(finite=True)))
    (1.0, 0.5)
    >>> SequenceOf(Number(finite=True), length=3).expected
    'a list of 3 items, each a finite number'
    """

    def __init__(self, item: Constraint, *, length: int | None = None,
                 words: str | None = None) -> None:
        self.item, self.length, self.words = item, length, words

    def describe(self) -> str:
        count = counted(self.length, "item") if self.length is not None else "items"
        return f"a list of {count}, each {self.item.expected}"

    def convert(self, value: Any) -> tuple[Any, ...]:
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            raise NotAcceptedError
        items = list(value)
        if self.length is not None and len(items) != self.length:
            raise NotAcceptedError
        return tuple(self.item.convert(item) for item in items)


class AnyOf(Constraint):
    """The first of several constraints that accepts the value (``a | b`` makes one)."""

    def __init__(self, *constraints: Constraint, words: str | None = None) -> None:
        flat: list[Constraint] = []
        for constraint in constraints:
            if isinstance(constraint, AnyOf) and constraint.words is None:
                flat.extend(constraint.constraints)
            else:
                flat.append(constraint)
        self.constraints: tuple[Constraint, ...] = tuple(flat)
        self.words = words

    def describe(self) -> str:
        parts = [c.expected for c in self.constraints]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def convert(self, value: Any) -> Any:
        remedy = None
        for constraint in self.constraints:
            try:
                return constraint.convert(value)
            except NotAcceptedError as refused:
                remedy = remedy or refused.remedy
        raise NotAcceptedError(remedy)


POSITIVE_INT = Integer(low=1)
"""An integer >= 1."""
NON_NEGATIVE_INT = Integer(low=0)
"""An integer >= 0."""
LEVEL = Number(0, 1, closed="neither")
"""A significance or confidence level: a number strictly between 0 and 1."""
PROBABILITY = Number(0, 1)
"""A probability: a number in [0, 1]."""
BOOLEAN: Constraint = _Boolean()
"""True or False."""
NONE: Constraint = _Nothing()
"""None (joined to another: ``optional(c)`` is ``c | NONE``)."""
MAPPING: Constraint = _Mapping()
"""A mapping (a dict)."""
CALLABLE: Constraint = _Callable()
"""Anything callable."""


def optional(constraint: Constraint) -> AnyOf:
    """*constraint*, or None.

    Examples
    --------
    >>> optional(Integer(low=1)).expected
    'a positive integer or None'
    """
    return AnyOf(constraint, NONE)


def check(name: str, value: Any, constraint: Constraint, *, where: str | None = None,
          remedy: str | None = None) -> Any:
    """*value* as *constraint* makes it, or :class:`InvalidParameterError` in the one wording.

    Parameters
    ----------
    name : str
        The parameter, as the user wrote it.
    value : Any
        What was given.
    constraint : Constraint
        What it must be.
    where : str, optional
        What the parameter belongs to, when its name alone does not say
        (``"fusion method 'rrf'"``); it leads the message.
    remedy : str, optional
        What to do instead, when the constraint has nothing better to say.

    Examples
    --------
    >>> check("n_resamples", 1000, Integer(low=1))
    1000
    >>> check("n_resamples", 0, Integer(low=1))
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: n_resamples must be a positive integer, got 0 (int)
    """
    try:
        return constraint.convert(value)
    except NotAcceptedError as refused:
        reject(name, value, constraint.expected, remedy=refused.remedy or remedy, where=where)


def check_fields(obj: Any, constraints: Mapping[str, Constraint]) -> None:
    """Check the declared fields of a frozen dataclass in place (each set to its checked value)."""
    for name, constraint in constraints.items():
        object.__setattr__(obj, name, check(name, getattr(obj, name), constraint))


class _Deprecated:
    """The default of a keyword that was renamed: tells "not given" from any value."""

    def __repr__(self) -> str:
        return "<deprecated>"

    def __bool__(self) -> bool:
        return False


DEPRECATED: Any = _Deprecated()
"""Default of a renamed keyword's old name (see :func:`renamed`)."""


def renamed(owner: str, old: str, new: str, old_value: Any, new_value: Any, default: Any,
            *, note: str = "") -> Any:
    """The value of a keyword given by its new name, or by its old one with a ``FutureWarning``.

    Parameters
    ----------
    owner : str
        The function (``"reproduce"``).
    old, new : str
        The keyword's old and new names.
    old_value : Any
        What the old name got (:data:`DEPRECATED` when it was not given).
    new_value, default : Any
        What the new name got, and its default.
    note : str
        Why it was renamed (appended to the warning).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed("reproduce", "depth", "rbo_depth", 100, 1000, 1000)
    100
    >>> str(caught[0].message)
    'reproduce: depth= is renamed rbo_depth=; depth= will stop working in a future release'
    """
    if old_value is DEPRECATED:
        return new_value
    if new_value is not default and new_value != default:
        raise InvalidParameterError(
            f"{owner}: give {new}= only ({old}= is its old name, given as well)"
        )
    warnings.warn(
        f"{owner}: {old}= is renamed {new}={note}; {old}= will stop working in a future release",
        FutureWarning, stacklevel=3,
    )
    return old_value
