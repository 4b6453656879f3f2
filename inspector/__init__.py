"""inspector: see what a graph_core graph is (topology exports, terminal drawing) and what it did
(recordings, replay, the terminal debugger, snapshot tests)."""
