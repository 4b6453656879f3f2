"""Pages a run can be handed over as: `inspector report RUN -o run.html` (one run) and
`inspector report A B -o diff.html` (two runs side by side from their first divergence).

Each page is one self-contained HTML file: the graph as inline SVG from Graphviz, the CSS and the
script written into it, nothing fetched (its Content-Security-Policy forbids it). See docs/report.md.
"""

from inspector.report.diffpage import diff_page
from inspector.report.page import run_page
from inspector.report.write import PAGE_SIZE_LIMIT, parse_steps, write_page

__all__ = ["PAGE_SIZE_LIMIT", "diff_page", "parse_steps", "run_page", "write_page"]
