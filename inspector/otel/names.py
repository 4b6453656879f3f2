"""The attribute, operation and event names a run's spans carry, by their registered names.

GenAI names come from the OpenTelemetry semantic conventions (`SEMCONV_VERSION`; the GenAI part is
still "Development", so the version is pinned and written into every trace as its schema URL), through
the SDK's own constants where it ships them; OpenInference's from `openinference-semantic-conventions`.
Names under `inspector.` are ours: what a graph run has and the conventions do not (supersteps, budgets,
branch decisions).
"""

from __future__ import annotations

from openinference.semconv.trace import OpenInferenceSpanKindValues, SpanAttributes
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "SCHEMA_URL",
    "SEMCONV_VERSION",
]

SEMCONV_VERSION = "1.44.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# GenAI (semantic conventions)
OPERATION = gen_ai.GEN_AI_OPERATION_NAME
WORKFLOW_NAME = gen_ai.GEN_AI_WORKFLOW_NAME
CONVERSATION_ID = gen_ai.GEN_AI_CONVERSATION_ID
AGENT_NAME = gen_ai.GEN_AI_AGENT_NAME
PROVIDER = gen_ai.GEN_AI_PROVIDER_NAME
REQUEST_MODEL = gen_ai.GEN_AI_REQUEST_MODEL
FINISH_REASONS = gen_ai.GEN_AI_RESPONSE_FINISH_REASONS
INPUT_TOKENS = gen_ai.GEN_AI_USAGE_INPUT_TOKENS
OUTPUT_TOKENS = gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS
CACHE_READ_TOKENS = gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS
CACHE_WRITE_TOKENS = gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS
TOOL_NAME = gen_ai.GEN_AI_TOOL_NAME
TOOL_CALL_ID = gen_ai.GEN_AI_TOOL_CALL_ID
TOOL_TYPE = gen_ai.GEN_AI_TOOL_TYPE
TOOL_ARGUMENTS = gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS
TOOL_RESULT = gen_ai.GEN_AI_TOOL_CALL_RESULT
INPUT_MESSAGES = gen_ai.GEN_AI_INPUT_MESSAGES
OUTPUT_MESSAGES = gen_ai.GEN_AI_OUTPUT_MESSAGES
ERROR_TYPE = error_attributes.ERROR_TYPE

OP_WORKFLOW = "invoke_workflow"
OP_NODE = "invoke_node"  # the semantic-conventions-genai #187/#188 proposal, carried as a custom value
OP_AGENT = gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value
OP_CHAT = gen_ai.GenAiOperationNameValues.CHAT.value
OP_TOOL = gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value

# OpenInference
OI_KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND
OI_NODE_ID = SpanAttributes.GRAPH_NODE_ID
OI_NODE_NAME = SpanAttributes.GRAPH_NODE_NAME
OI_PARENT_ID = SpanAttributes.GRAPH_NODE_PARENT_ID
OI_CHAIN = OpenInferenceSpanKindValues.CHAIN.value
OI_AGENT = OpenInferenceSpanKindValues.AGENT.value
OI_LLM = OpenInferenceSpanKindValues.LLM.value
OI_TOOL = OpenInferenceSpanKindValues.TOOL.value

# Ours
RUN_ID = "inspector.run.id"
RUN_STATUS = "inspector.run.status"
SEGMENT = "inspector.run.segment"
RESUMED_FROM = "inspector.run.resumed_from"
STARTED_AT = "inspector.run.started_at"
RUN_META = "inspector.run.meta"
RUN_INPUT = "inspector.run.input"
RUN_OUTPUT = "inspector.run.output"
STEP_T = "inspector.step.t"
STATE = "inspector.state"
NODE_INPUT = "inspector.node.input"
NODE_OUTPUT = "inspector.node.output"
NODE_T = "inspector.node.t"
NODE_DURATION = "inspector.node.duration"
TOPOLOGY = "inspector.graph.topology"
GRAPH_NAME = "inspector.graph.name"
TRIGGER_MODE = "inspector.graph.trigger_mode"
STEPS_MAX = "inspector.budget.steps_max"
STEPS_USED = "inspector.budget.steps_used"
MODEL_CALLS = "inspector.budget.model_calls"
TOOL_CALLS = "inspector.budget.tool_calls"
PROMPT_TOKENS = "inspector.budget.prompt_tokens"
COMPLETION_TOKENS = "inspector.budget.completion_tokens"
TOTAL_TOKENS = "inspector.budget.total_tokens"
ITERATIONS_REMAINING = "inspector.budget.iterations_remaining"
BUDGET_EXHAUSTED = "inspector.budget.exhausted"
STEP = "inspector.step"
STEP_NODES = "inspector.step.nodes"
STEP_DURATION = "inspector.step.duration"
STEP_ENDED = "inspector.step.ended"
STEP_ERRORS = "inspector.step.errors"
STEP_INTERRUPTED = "inspector.step.interrupted"
STEP_PATH = "inspector.step.path"
STEP_SPANS = "inspector.step.spans"
STEP_NEXT = "inspector.step.next_nodes"
STATE_DELTA = "inspector.state.delta"
NODE_KEY = "inspector.node.key"
NODE_PATH = "inspector.node.path"
NODE_TYPE = "inspector.node.type"
NODE_NAME = "inspector.node.name"
TRIGGERED_BY = "inspector.node.triggered_by"
ERROR_MESSAGE = "inspector.error.message"
ERROR_CAUSE_TYPE = "inspector.error.cause_type"
ERROR_CAUSE_MESSAGE = "inspector.error.cause_message"
ERROR_NODE_PATH = "inspector.error.node_path"
BRANCH_SOURCE = "inspector.branch.source"
BRANCH_INDEX = "inspector.branch.index"
BRANCH_CHOSEN = "inspector.branch.chosen"
BRANCH_SKIPPED = "inspector.branch.skipped"
STATE_KEYS = "inspector.state.keys"
STATE_COUNT = "inspector.state.count"
INTERRUPT_BEFORE = "inspector.interrupt.before"
INTERRUPT_AFTER = "inspector.interrupt.after"
CHECKPOINT_ID = "inspector.interrupt.checkpoint_id"
INTERRUPT_RERUN = "inspector.interrupt.rerun"

EVENT_STEP = "inspector.step"
EVENT_UNFINISHED = "inspector.step_unfinished"
EVENT_BRANCH = "inspector.branch"
EVENT_STATE = "inspector.state_change"
EVENT_INTERRUPT = "inspector.interrupt"
