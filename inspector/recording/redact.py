"""Redaction: what must never reach a run file, decided before anything is encoded or written.

Two kinds of masking, both applied by the encoder during its one walk over each value:

- **By key** (dict keys, pydantic fields, dataclass fields) at any depth, so a secret placed in state, in
  a node input or in a message's `extra` is caught wherever it sits; also the keys of JSON held *in a
  string* (a tool call's arguments, a tool's JSON result), whose values are replaced in the text, which
  stays the same JSON otherwise. A key counts by its whole words (`secret_keys`: `client_secret` and
  `refreshToken` are secrets, `secretary` and `password_policy` are not). A callable can mask by value
  as well.
- **By value**: regular expressions searched in every recorded string (message texts, tool arguments
  and results, error messages, `repr`s) for credential shapes with their real prefixes and lengths
  (`secret_shapes`, modeled on detect-secrets: bearer and `Basic` headers, OpenAI, GitHub, AWS, Slack,
  Google, Stripe, GitLab, npm and PyPI tokens, JWTs, URL passwords, PEM private keys, `Cookie` headers,
  `password=...`-style assignments), plus the secret values themselves when the caller knows them.

Most strings hold nothing of the sort, and recording runs inside the observed run (every new message
text, every tool argument), so the default value patterns are searched only after a cheap test: a few
characters one of which each of their matches holds (`-` for `sk-...`, `=` for `password=...`), then
a literal it holds (`sk-`, `eyJ`, `bearer`, `passw`, ...); see `_GUARDS`. Patterns of the caller's own
have no such test and are searched in every string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.recording.secret_keys import DEFAULT_REDACT_KEYS, KEY_STEMS, key_words
from inspector.recording.secret_shapes import DEFAULT_REDACT_PATTERNS, SHAPES, Trigger, shape_of

__all__ = [
    "DEFAULT_REDACT_KEYS",
    "DEFAULT_REDACT_PATTERNS",
    "MASK",
    "RedactSpec",
    "Redaction",
    "make_redaction",
]

MASK = "[REDACTED]"

Guard = tuple[tuple[Trigger, ...], tuple[str, ...], str]

_GUARDS: dict[str, Guard] = {shape.regex: (shape.triggers, shape.literals, shape.fold) for shape in SHAPES}
"""Per default pattern, what every one of its matches holds: one of its triggers, and one of its
literals (searched in the lowered or case-folded text when its fold says so: `bearer` is any case).
The cheap test before the search, in two stages: text without a trigger is done after a few
`memchr`s (most text), text with one is searched only when it holds a literal too. In JSON text a
double quote before a colon is every key's, so that trigger is left out there: its keys are masked by
key."""

_FIRST = "=bB-JA_@"
_COLON_SECONDS = "kK'\""
"""The first character of every default trigger, and for those whose first is a colon, the second (a
colon alone is in most text): text with none of them cannot hold a default shape. `Redaction.scrub`
writes the test out (a chain of `in` is the fastest test there is); a test checks both against
`secret_shapes.SHAPES`."""

_STEM_CHARS = "kcwhb"
"""A character of each key stem (`key` and `token`: k; `secret`: c; `passw`: w; `author`: h; `db`: b):
case-folded JSON text with none of them has no key to mask."""

_JSON_VALUE_CHARS = "kcwhbjA-_@"
"""Characters one of which every default value literal holds, in case-folded text (`k` `c` `w` `h` `b`
`j`) or as written (`A` for `ASIA`/`AIza`, `-` for `xox-`/`glpat-`/`pypi-`, `_` for `npm_`, `@` for a
URL password): the first test for JSON text, written out in `Redaction._scrub_json`."""

Literals = tuple[str, ...]
TableRow = tuple[str, tuple[tuple[str, Literals, Literals, Literals], ...]]
"""A trigger's first character, and per second character (may be empty) the literals searched as
written, lowered and case-folded when the text holds both: the guards of every pattern merged by
trigger, and the triggers by their first character (each looked for once)."""

_JSON_STARTS = ("{", "[")
_JSON_KEY = re.compile(r'"((?:[^"\\\n]|\\.)*)"\s*:\s*')
_JSON_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"?|[^,}\]\s]*')
_DECODER = json.JSONDecoder()

KeyFn = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Redaction:
    """What to mask. `keys` are regexes searched in each key (any case); `fn(key, value)` returns a
    replacement value; `patterns` are regexes whose matches are masked in every recorded string;
    `values` are the secrets themselves (API keys, passwords), masked wherever they appear in a string.

    `fn` sees the raw value before encoding and returns either it (unchanged) or what to record instead.
    `values` never shows in `repr` (a `Redaction` may end up in a log or a traceback).
    """

    keys: tuple[str, ...] = DEFAULT_REDACT_KEYS
    fn: KeyFn | None = None
    mask: str = MASK
    patterns: tuple[str, ...] = DEFAULT_REDACT_PATTERNS
    values: tuple[str, ...] = field(default=(), repr=False)
    _pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    _cache: dict[str, bool] = field(init=False, repr=False, compare=False, default_factory=lambda: {})
    _scan: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    _guards: tuple[TableRow, ...] | None = field(init=False, repr=False, compare=False, default=None)
    _json_guards: tuple[TableRow, ...] | None = field(init=False, repr=False, compare=False, default=None)
    _quick: bool = field(init=False, repr=False, compare=False, default=False)
    _forms: tuple[str, ...] = field(init=False, repr=False, compare=False, default=())
    _stems: tuple[str, ...] | None = field(init=False, repr=False, compare=False, default=None)
    _last_json: list[tuple[str, str]] = field(
        init=False, repr=False, compare=False, default_factory=lambda: [("", "")]
    )

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "keys", _strings(self.keys, "keys"))
        set_(self, "patterns", tuple(dict.fromkeys(_strings(self.patterns, "patterns"))))
        set_(self, "values", _strings(self.values, "values"))
        if self.keys:
            joined = "|".join(f"(?:{k})" for k in self.keys)
            set_(self, "_pattern", re.compile(joined, re.IGNORECASE))
            if all(k in KEY_STEMS for k in self.keys):
                set_(self, "_stems", tuple(dict.fromkeys(s for k in self.keys for s in KEY_STEMS[k])))
        if self.patterns:
            set_(self, "_scan", re.compile("|".join(f"(?:{p})" for p in self.patterns)))
        if all(p in _GUARDS for p in self.patterns):
            guards = [_GUARDS[p] for p in self.patterns]
            set_(self, "_guards", _table(guards))
            set_(self, "_json_guards", _table(guards, json_text=True))
        forms = {form for value in self.values if value for form in _forms_of(value)}
        set_(self, "_forms", tuple(sorted(forms, key=len, reverse=True)))
        # `scrub`'s first test holds every default pattern's triggers, so it serves any subset of them
        set_(self, "_quick", self._guards is not None and not self._forms)

    @property
    def active(self) -> bool:
        """Whether any key is masked (by pattern or by `fn`)."""
        return self._pattern is not None or self.fn is not None

    @property
    def scrubs(self) -> bool:
        """Whether `scrub` can change a string (value patterns, values, or keys inside JSON text)."""
        return self._scan is not None or bool(self._forms) or self._pattern is not None

    def masks_key(self, key: str) -> bool:
        """Whether values under `key` are masked: a key pattern is searched in the key as written and
        in its words (`secret_keys.key_words`: `refreshToken` is `refresh_token`). Cached because the
        same keys recur on every step."""
        hit = self._cache.get(key)
        if hit is None:
            pattern = self._pattern
            hit = pattern is not None and (
                pattern.search(key) is not None or pattern.search(key_words(key)) is not None
            )
            if len(self._cache) < 10_000:
                self._cache[key] = hit
        return hit

    def scrub(self, text: str) -> str:
        """`text` with secrets masked: values under secret keys when it holds JSON, the known secret
        values, and matches of the value patterns. The same object when there is nothing to mask.

        Recording calls this for every new string, inside the observed run, and most strings hold
        nothing to mask: the first test (`_FIRST`, the first character of every trigger, written out)
        settles those in a few `memchr`s. A JSON object always passes it (its keys hold a colon)."""
        if self._quick and not (
            "=" in text
            or "b" in text
            or "B" in text
            or "-" in text
            or "J" in text
            or "A" in text
            or "_" in text
            or "@" in text
            or (":" in text and ("k" in text or "K" in text or '"' in text or "'" in text))
        ):
            return text
        if self._pattern is not None and _looks_like_json(text):
            last = self._last_json[0]  # a tool call's arguments come again as the tool's input
            if last[0] is text:
                return last[1]
            out = self._scrub_json(text)
            self._last_json[0] = (text, out)  # one tuple: a consistent pair for any thread
            return out
        if self._forms:
            text = self._mask_values(text)
        if self._scan is None:
            return text
        return self._mask_patterns(text, self._guards)

    def _scrub_json(self, text: str) -> str:
        """`scrub` for JSON text: keys, then known values, then value patterns (`_json_guard`)."""
        folded = None
        if self._quick and self._stems is not None:
            folded = text.casefold()
            if not (  # a character of each key stem and value literal (`_JSON_VALUE_CHARS`), an escape
                "k" in folded
                or "c" in folded
                or "w" in folded
                or "h" in folded
                or "b" in folded
                or "j" in folded
                or "\\" in folded
                or "A" in text
                or "-" in text
                or "_" in text
                or "@" in text
            ):
                return text
        out = self._mask_json_keys(text, folded)
        if self._forms:
            out = self._mask_values(out)
        if self._scan is not None:
            out = self._mask_patterns(out, self._json_guards)
        return out

    def _mask_values(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, self.mask)
        return text

    def _mask_patterns(self, text: str, guards: tuple[TableRow, ...] | None) -> str:
        """Matches of the value patterns masked; searched only when `guards` (None: unknown) say a
        match is possible."""
        scan = self._scan
        if scan is None or (guards is not None and not _suspect(text, guards)):
            return text
        return scan.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        """A match masked: whole, or only its shape's secret part (`secret_shapes.Shape.secret`);
        left as it is when the shape's check says it only looks like one."""
        shape = shape_of(match)
        if shape is None:
            return self.mask
        if shape.check is not None and not shape.check(match):
            return match.group(0)
        for group in shape.secret:
            start, end = match.span(group)
            if start >= 0:
                text = match.string
                return f"{text[match.start() : start]}{self.mask}{text[end : match.end()]}"
        return self.mask

    def _mask_json_keys(self, text: str, folded: str | None = None) -> str:
        """The values of secret keys in JSON text replaced by the mask (as a JSON string), the rest of the
        text as it was; text that is not valid JSON (cut off, say) is masked as far as it goes. `folded`:
        `text.casefold()`, when the caller has it."""
        stems = self._stems
        if stems is not None:
            if folded is None:
                folded = text.casefold()
            for stem in stems:
                if stem in folded:
                    break
            else:
                if "\\u" not in folded:  # an escaped key (`"\\u0070assword"`) is read as it decodes
                    return text
        out: list[str] = []
        done = 0
        for match in _JSON_KEY.finditer(text):
            start = match.end()
            if match.start() < done or not self.masks_key(_json_key(match.group(1))):
                continue
            try:
                end = _DECODER.raw_decode(text, start)[1]
            except (ValueError, RecursionError):
                scalar = _JSON_SCALAR.match(text, start)
                end = scalar.end() if scalar is not None else start
            out.append(text[done:start])
            out.append(json.dumps(self.mask))
            done = end
        if not out:
            return text
        out.append(text[done:])
        return "".join(out)


def _table(guards: Sequence[Guard], *, json_text: bool = False) -> tuple[TableRow, ...]:
    """`guards` merged by trigger, so a trigger shared by several patterns is looked for once. For JSON
    text, without the triggers that need a double quote (see `_GUARDS`). Equal literal lists are one
    tuple, so `_suspect` searches them once (`bearer` and `basic` for both `b` and `B`)."""
    rows: dict[str, dict[str, dict[str, list[str]]]] = {}
    same: dict[Literals, Literals] = {}

    def one(literals: list[str]) -> Literals:
        return same.setdefault(tuple(literals), tuple(literals))

    for triggers, literals, fold in guards:
        for first, second in triggers:
            if json_text and '"' in (first, second):
                continue
            by_fold = rows.setdefault(first, {}).setdefault(second, {"": [], "ascii": [], "unicode": []})
            by_fold[fold].extend(literal for literal in literals if literal not in by_fold[fold])
    return tuple(
        (
            first,
            tuple(
                (second, one(f[""]), one(f["ascii"]), one(f["unicode"])) for second, f in by_second.items()
            ),
        )
        for first, by_second in rows.items()
    )


def _suspect(text: str, table: tuple[TableRow, ...]) -> bool:
    """Whether one of the patterns `table` stands for may match `text`: it holds one of their
    triggers and one of that trigger's literals."""
    lowered: str | None = None
    folded: str | None = None
    searched: list[Literals] = []  # lists already searched in vain (the same tuple under two triggers)
    for first, seconds in table:
        if first not in text:
            continue
        for second, exact, ascii_folded, unicode_folded in seconds:
            if second and second not in text:
                continue
            for literal in exact:
                if literal in text:
                    return True
            if ascii_folded and not any(ascii_folded is done for done in searched):
                if lowered is None:
                    lowered = text.lower()
                for literal in ascii_folded:
                    if literal in lowered:
                        return True
                searched.append(ascii_folded)
            if unicode_folded and not any(unicode_folded is done for done in searched):
                if folded is None:
                    folded = text.casefold()
                for literal in unicode_folded:
                    if literal in folded:
                        return True
                searched.append(unicode_folded)
    return False


def _looks_like_json(text: str) -> bool:
    start = text[:1]
    return start in _JSON_STARTS or (start.isspace() and text.lstrip()[:1] in _JSON_STARTS)


def _strings(items: Sequence[str] | str, what: str) -> tuple[str, ...]:
    if isinstance(items, str):
        items = (items,)
    out = tuple(items)
    for item in out:
        if not isinstance(item, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"Redaction {what} must be strings, got {type(item).__name__}")
    return out


def _forms_of(value: str) -> set[str]:
    """A secret as a string may hold it: itself, stripped of the whitespace a key file leaves, and
    escaped as in JSON text (quotes, backslashes, control characters)."""
    forms = {value, value.strip(), json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    return {form for form in forms if form}


def _json_key(raw: str) -> str:
    if "\\" not in raw:
        return raw
    try:
        return str(json.loads(f'"{raw}"'))
    except ValueError:
        return raw


RedactSpec = Redaction | Sequence[str] | KeyFn | bool | None


def make_redaction(spec: RedactSpec) -> Redaction:
    """Normalise the `redact=` argument of `Recorder`.

    `True` (the default) masks `DEFAULT_REDACT_KEYS` and `DEFAULT_REDACT_PATTERNS`; `False`/`None`
    records everything; a sequence of strings replaces the key patterns (the value patterns stay); a
    callable `fn(key, value)` is added to the defaults; a `Redaction` is used as given.
    """
    if isinstance(spec, Redaction):
        return spec
    if spec is True:
        return _DEFAULT  # shared: its per-key cache then outlives one recorder
    if spec is False or spec is None:
        return NO_REDACTION
    if isinstance(spec, str):
        return Redaction(keys=(spec,))
    if callable(spec):
        return Redaction(fn=spec)
    return Redaction(keys=tuple(spec))


_DEFAULT = Redaction()
NO_REDACTION = Redaction(keys=(), patterns=())
"""Records everything as it is."""
