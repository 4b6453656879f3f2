"""The catalog's errors.

InspectorError
 └── CatalogError (also a ValueError): a source that cannot be opened, a filter that does not
     parse, a field that does not exist. The CLI turns it into one paragraph and status 2.
"""

from __future__ import annotations

from inspector.errors import InspectorError

__all__ = ["CatalogError"]


class CatalogError(InspectorError, ValueError):
    """Bad input to the catalog: what is wrong and where (the source, the filter, the column)."""
