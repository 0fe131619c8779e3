package project

// The allowed keys of crew.jsonc, agent files and task objects are the
// Pydantic model_fields of Crew, Agent and Task minus the runtime-only sets
// (formats §1.3). These lists are those model fields for CrewAI 1.15.17 as
// listed in formats §1.4–§1.6, completed from the field declarations of
// Crew, BaseAgent/Agent and Task.

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

var crewRuntimeFields = set("id", "usage_metrics", "task_execution_output_json_files", "execution_logs",
	"token_usage", "execution_context", "checkpoint_inputs", "checkpoint_train", "checkpoint_kickoff_event_id")

// crewFields are Crew.model_fields (runtime-only ones included: they are
// rejected by the runtime check before the unknown check).
var crewFields = set("name", "cache", "tasks", "agents", "process", "verbose", "memory", "embedder",
	"usage_metrics", "manager_llm", "manager_agent", "function_calling_llm", "config", "id", "share_crew",
	"step_callback", "task_callback", "before_kickoff_callbacks", "after_kickoff_callbacks", "stream",
	"max_rpm", "prompt_file", "output_log_file", "planning", "planning_llm", "task_execution_output_json_files",
	"execution_logs", "knowledge_sources", "chat_llm", "knowledge", "security_config", "token_usage",
	"tracing", "skills", "checkpoint", "trained_agents_file", "entity_type", "tool_failure_policy",
	"execution_context", "checkpoint_inputs", "checkpoint_train", "checkpoint_kickoff_event_id")

var crewExtraAllowed = set("inputs")

var agentRuntimeFields = set("id", "crew", "cache_handler", "tools_handler", "tools_results", "knowledge",
	"knowledge_storage", "adapted_agent", "agent_knowledge_context", "crew_knowledge_context",
	"knowledge_search_query", "execution_context", "checkpoint_kickoff_event_id")

var agentFields = set(
	// BaseAgent
	"id", "role", "goal", "backstory", "config", "cache", "verbose", "max_rpm", "allow_delegation", "tools",
	"max_iter", "agent_executor", "llm", "crew", "i18n", "cache_handler", "tools_handler", "tools_results",
	"max_tokens", "knowledge", "knowledge_sources", "knowledge_storage", "security_config", "callbacks",
	"adapted_agent", "knowledge_config", "apps", "mcps", "memory", "skills", "checkpoint", "entity_type",
	"execution_context", "checkpoint_kickoff_event_id",
	// Agent
	"max_execution_time", "step_callback", "use_system_prompt", "function_calling_llm", "system_template",
	"prompt_template", "response_template", "allow_code_execution", "respect_context_window",
	"max_retry_limit", "multimodal", "inject_date", "date_format", "code_execution_mode", "reasoning",
	"max_reasoning_attempts", "embedder", "agent_knowledge_context", "crew_knowledge_context",
	"knowledge_search_query", "from_repository", "guardrail", "guardrail_max_retries", "a2a",
	"executor_class", "tool_failure_policy", "planning", "planning_config")

var agentExtraAllowed = set("settings", "type")

var taskRuntimeFields = set("id", "used_tools", "tools_errors", "delegations", "output", "processed_by_agents",
	"retry_count", "start_time", "end_time", "checkpoint_original_description", "checkpoint_original_expected_output")

var taskFields = set("id", "name", "description", "expected_output", "agent", "context", "tools", "config",
	"prompt_context", "security_config", "output_json", "output_pydantic", "response_model", "output_file",
	"create_directory", "output", "callback", "async_execution", "human_input", "markdown", "converter_cls",
	"processed_by_agents", "guardrail", "guardrails", "max_retries", "guardrail_max_retries", "retry_count",
	"start_time", "end_time", "allow_crewai_trigger_context", "input_files", "tool_failure_policy",
	"used_tools", "tools_errors", "delegations", "i18n", "checkpoint_original_description",
	"checkpoint_original_expected_output")

// conditionalTaskFields adds ConditionalTask's own field.
var conditionalTaskFields = set("condition")

var taskExtraAllowed = set("type")

var agentTypeAliases = set("agent", "Agent", "crewai.Agent", "crewai.agent.core.Agent")
var taskTypeAliases = set("task", "Task", "crewai.Task", "crewai.task.Task")
var conditionalTypeAliases = set("conditional", "conditional_task", "ConditionalTask",
	"crewai.tasks.conditional_task.ConditionalTask")

// Fields that hold Python callables or classes ({"python": …}).
var (
	callableFields     = set("guardrail", "step_callback", "callback", "condition", "task_callback")
	callableListFields = set("callbacks", "guardrails", "before_kickoff_callbacks", "after_kickoff_callbacks")
	modelClassFields   = set("output_json", "output_pydantic", "response_model")
	objectRefFields    = set("agent_executor", "checkpoint", "embedder", "function_calling_llm", "i18n",
		"knowledge", "knowledge_config", "knowledge_sources", "knowledge_storage", "llm", "memory",
		"planning_config", "security_config", "skills", "chat_llm", "manager_agent", "manager_llm", "planning_llm")
)

// llmKnownKeys are the LLM object keys the model keeps in typed fields.
var llmKnownKeys = set("model", "model_name", "deployment_name", "provider", "base_url", "api_base", "api_key",
	"api_version", "temperature", "top_p", "max_tokens", "max_completion_tokens", "timeout", "seed", "stop",
	"reasoning_effort", "stream")
