"""Which keys name a secret: decided on the key's words, and mostly on the last of them.

A key is split into words (`snake_case`, `camelCase`, `kebab-case`, `dotted.names`, `APIKey`) and
written as lower-case words joined by `_` (`key_words`): `X-Api-Key` is `x_api_key`, `refreshToken`
is `refresh_token`. The default patterns are written against that form and anchored on whole words,
usually the last one (the noun the key names): `password`, `client_secret`, `accessToken` and
`private_key` are secrets; `secretary`, `authorization_status`, `password_policy`, `max_tokens`,
`max_token` and `token_type` are not. A pattern is searched both in the key as written and in its
words, so a pattern of the caller's own (`redact=["tok"]`) keeps matching the key it always did.

The stems beside each pattern are what the JSON-text fast path in `redact` needs: literals, one of
which every key a pattern matches holds in its case-folded text.
"""

from __future__ import annotations

import re

__all__ = ["DEFAULT_REDACT_KEYS", "KEY_STEMS", "key_words", "names_secret"]

SECRET_NOUNS = r"(?:^|_)(?:passwords?|passwd|passphrase|secrets?|authorization|bearer|cookies?|credentials?)$"
"""The last word names the secret itself: `password`, `db_password`, `client_secret`, `Cookie`,
`Proxy-Authorization`, `aws_credentials`."""

SECRET_KEY = r"(?:^|_)(?:api|private|secret|access|signing|encryption|client|master|account)_?keys?$"
"""A key (the noun) of a secret kind: `api_key`, `apiKey`, `APIKEY`, `x-api-key`, `private_key`,
`secretKey`, `aws_secret_access_key`, `AccountKey` (not `key`, `monkey`, `keyboard`, `sort_key`)."""

ACCESS_KEY_ID = r"(?:^|_)access_key_id$"
"""`aws_access_key_id`: half of a credential pair, and what leaks first."""

TOKEN_KEY = r"(?:^|(?<!max)(?<!min)(?<!num)(?<!total)_)token$"
"""`token` as the last word: `token`, `access_token`, `id-token`, `refreshToken`, `AUTH_TOKEN`; not
`max_tokens`, `tokens_used`, `token_type`, `tokenizer`, nor `max_token`/`total_token` (counts)."""

PWD_KEY = r"_pwd$"
"""`db_pwd`, `MYSQL_PWD`; `pwd` alone is the working directory (the shell's `PWD`), not a password."""

CONNECTION_KEY = r"(?:^|_)(?:(?:database|db)_(?:url|uri|dsn)|connection_string)$"
"""`database_url`, `DB_URI`, `connectionString`: a connection string holds the password."""

PASSWORD_HASH = r"(?:^|_)(?:password|passwd)_(?:hash|digest)$"
"""`password_hash`: not the password, but as good as one to anyone who can crack it."""

DEFAULT_REDACT_KEYS: tuple[str, ...] = (
    SECRET_NOUNS,
    SECRET_KEY,
    ACCESS_KEY_ID,
    TOKEN_KEY,
    PWD_KEY,
    CONNECTION_KEY,
    PASSWORD_HASH,
)
"""Regular expressions searched (case-insensitively) in every key, as written and as `key_words`."""

KEY_STEMS: dict[str, tuple[str, ...]] = {
    SECRET_NOUNS: ("passw", "phrase", "secret", "author", "bearer", "cookie", "credential"),
    SECRET_KEY: ("key",),
    ACCESS_KEY_ID: ("key",),
    TOKEN_KEY: ("token",),
    PWD_KEY: ("pwd",),
    CONNECTION_KEY: ("db", "datab", "conn"),
    PASSWORD_HASH: ("passw",),
}
"""Per default key pattern, literals one of which every matching key contains, case-folded: JSON text
whose case-folded form holds none of them (and no `\\u` escape) has no key to mask, and is not searched
for keys. None holds an `i`, which a case-insensitive pattern also matches as `ı` or `İ`, and case
folding keeps apart; `casefold` (unlike `lower`) turns `ſ` into the `s` it matches. Splitting a key
into words only inserts `_` between letters the key already has side by side, so a stem found in the
words is found in the key."""

_SEPARATORS = re.compile(r"[\W_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_DEFAULT = re.compile("|".join(f"(?:{k})" for k in DEFAULT_REDACT_KEYS), re.IGNORECASE)


def key_words(key: str) -> str:
    """`key` as its case-folded words joined by `_`: `X-Api-Key` -> `x_api_key`, `OAuthToken` ->
    `o_auth_token`, `ſecret` -> `secret`."""
    words = (word for part in _SEPARATORS.split(key) for word in _CAMEL.split(part) if word)
    return "_".join(words).casefold()


def names_secret(key: str) -> bool:
    """Whether the default key patterns mask values under `key` (also used for the names of
    `name=value` assignments found in text, so both agree)."""
    return _DEFAULT.search(key) is not None or _DEFAULT.search(key_words(key)) is not None
