"""Eino's two ReAct agents: the flow agent (`react`) and the ADK ChatModelAgent (`adk`)."""
