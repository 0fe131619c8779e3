package crew

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"crewbench/crew/llm"
	"crewbench/crew/prompt"
	"crewbench/crew/pyjson"
)

// respect_context_window (crewai-formats.md §5): on a context-length error
// the executor either summarizes the conversation and goes on, or — when
// the agent opted out — ends the whole run (Python's SystemExit is not an
// Exception, so neither the executor nor max_retry_limit catches it).

// ContextExceededError is that SystemExit: the run ends, no task retry.
type ContextExceededError struct{}

func (*ContextExceededError) Error() string { return prompt.ContextExceededExit }

// handleContextLength is handle_context_length (utilities/agent_utils.py:
// 795-832), reached from the executor's context_error route
// (experimental/agent_executor.py:1476-1480, 1575-1578, 2786-2800): it
// reports whether err was a context-length error it dealt with (the loop
// then goes on with the summary), or returns the error that ends the run.
func (ar *agentRun) handleContextLength(ctx context.Context, err error) (bool, error) {
	if !llm.IsContextLengthExceeded(err) {
		return false, err
	}
	if !ar.agent.RespectContextWindow {
		ar.rs.warn(ar.span, ar.base, prompt.ContextNotSummarizing)
		return false, &ContextExceededError{}
	}
	ar.rs.warn(ar.span, ar.base, prompt.ContextSummarizing)
	step := ar.startStep()
	serr := ar.summarizeMessages(ctx, step)
	ar.finishStep(step, serr)
	if serr != nil {
		return false, serr
	}
	// recover_from_context_length counts the pass that hit the limit as an
	// iteration (agent_executor.py:2798), so a history that never fits
	// ends at max_iter.
	ar.iterations++
	return true, nil
}

// summarizeMessages is summarize_messages (agent_utils.py:1048-1131): the
// system messages are kept; the others are cut into chunks at message
// boundaries (a message too big for one chunk is split into parts), each
// chunk is summarized by the agent's LLM, and the history becomes the
// system messages plus one user message holding the summaries.
//
// CrewAI summarizes several chunks concurrently (asyncio.gather over
// llm.acall); crewbench sends the same requests one after the other, in
// chunk order, so a scripted LLM answers them deterministically. Their
// llm_call_* events then do not interleave as CrewAI's may.
func (ar *agentRun) summarizeMessages(ctx context.Context, step string) error {
	var system, rest []llm.Message
	for _, m := range ar.messages {
		if m.Role == llm.RoleSystem {
			system = append(system, m)
		} else {
			rest = append(rest, m)
		}
	}
	if len(rest) == 0 {
		// Nothing to summarize: the history stays as it is (:1071-1072).
		return nil
	}
	maxTokens := llm.ContextWindowSize(ar.agent.LLM)
	chunks := splitMessagesIntoChunks(rest, maxTokens)
	// The verbose prints of :1088-1092 and :1104-1108.
	if len(chunks) <= 1 {
		ar.rs.warn(step, ar.base, "Summarizing 1/1...")
	} else {
		ar.rs.warn(step, ar.base, "Summarizing "+strconv.Itoa(len(chunks))+" chunks in parallel...")
	}
	summaries := make([]string, len(chunks))
	var first error
	for i, chunk := range chunks {
		s, err := ar.summarizeChunk(ctx, step, chunk)
		if err != nil {
			err = fmt.Errorf("summarizing chunk %d of %d (%d tokens at most each): %w", i+1, len(chunks), maxTokens, err)
			// gather has every request under way before the first
			// failure comes back, so the others are still sent; a
			// cancelled run stops at once.
			if len(chunks) == 1 || ctx.Err() != nil || errors.Is(err, ErrAborted) {
				return err
			}
			if first == nil {
				first = err
			}
			continue
		}
		summaries[i] = s
	}
	if first != nil {
		return first
	}
	// Fresh slices: earlier requests and events share the old ones. The
	// system messages are the same dicts (mark included); the summary is a
	// new user message (format_message_for_llm, rstripped).
	ar.messages, ar.wire = nil, nil
	ar.appendMsg(system...)
	merged := strings.Join(summaries, "\n\n")
	ar.appendMsg(llm.Message{Role: llm.RoleUser, Content: prompt.RStrip(prompt.Fill(prompt.Summary, "{merged_summary}", merged))})
	return nil
}

// summarizeChunk is one summarizing call (_summarize_one, :1028-1043, and
// :1093-1105): the summarizer system message and the instruction around
// the chunk's labelled text, on the agent's LLM with no tools and no
// response format. llm.call gets neither from_task nor from_agent, so the
// call's events carry no task or agent.
func (ar *agentRun) summarizeChunk(ctx context.Context, step string, chunk []llm.Message) (string, error) {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: prompt.RStrip(prompt.SummarizerSystem)},
		{Role: llm.RoleUser, Content: prompt.RStrip(prompt.Fill(prompt.SummarizeInstruction, "{conversation}", formatMessagesForSummary(chunk)))},
	}
	target := ar.agentTarget()
	target.unattributed = true
	resp, err := ar.callLLMOn(ctx, step, target, msgs, nil, false)
	if err != nil {
		return "", err
	}
	return extractSummaryTags(resp.Content), nil
}

// estimateTokens is _estimate_token_count (:835-844): len(text) // 4, in
// characters (code points), as Python counts them.
func estimateTokens(s string) int { return utf8.RuneCountInString(s) / 4 }

// contentIsNone: CrewAI's executor writes an assistant message that asks
// for tools with content None (build_tool_calls_assistant_message,
// :1560-1564); instructor's dumps have "" (llm.Message.SDKDump).
func contentIsNone(m llm.Message) bool {
	return m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 && !m.SDKDump
}

// contentText is _message_content_text (:847-852): None counts as "".
func contentText(m llm.Message) string {
	if contentIsNone(m) {
		return ""
	}
	return m.Content
}

// splitTextByTokens is _split_text_by_token_limit (:855-864): slices of
// max(1, maxTokens*4) characters.
func splitTextByTokens(text string, maxTokens int) []string {
	if text == "" {
		return nil
	}
	if estimateTokens(text) <= maxTokens {
		return []string{text}
	}
	size := max(1, maxTokens*4)
	r := []rune(text)
	var parts []string
	for i := 0; i < len(r); i += size {
		parts = append(parts, string(r[i:min(len(r), i+size)]))
	}
	return parts
}

// expandOversized is _expand_oversized_message (:867-885): a message whose
// content alone exceeds maxTokens becomes "[Part i/n]\n…" copies of
// itself, 5 tokens kept back for the prefix.
func expandOversized(m llm.Message, maxTokens int) []llm.Message {
	if estimateTokens(contentText(m)) <= maxTokens {
		return []llm.Message{m}
	}
	// Only a message with content gets here, so the parts keep it.
	parts := splitTextByTokens(m.Content, max(1, maxTokens-5))
	out := make([]llm.Message, 0, len(parts))
	for i, p := range parts {
		c := m
		c.Content = p
		if len(parts) > 1 {
			c.Content = "[Part " + strconv.Itoa(i+1) + "/" + strconv.Itoa(len(parts)) + "]\n" + p
		}
		out = append(out, c)
	}
	return out
}

// splitMessagesIntoChunks is _split_messages_into_chunks (:955-992) over
// _normalize_messages_for_chunking (:888-897): greedy chunks of whole
// (expanded) messages, each at most maxTokens unless one message alone is
// bigger.
func splitMessagesIntoChunks(msgs []llm.Message, maxTokens int) [][]llm.Message {
	var chunks [][]llm.Message
	var cur []llm.Message
	tokens := 0
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			continue
		}
		for _, e := range expandOversized(m, maxTokens) {
			n := estimateTokens(contentText(e))
			if len(cur) > 0 && tokens+n > maxTokens {
				chunks = append(chunks, cur)
				cur, tokens = nil, 0
			}
			cur = append(cur, e)
			tokens += n
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// formatMessagesForSummary is _format_messages_for_summary (:900-952):
// "[USER]: …", "[ASSISTANT]: …" and "[TOOL_RESULT (name)]: …" lines joined
// by blank lines; an assistant message with None content names the tools
// it called.
func formatMessagesForSummary(msgs []llm.Message) string {
	lines := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			continue
		}
		content := m.Content
		if contentIsNone(m) {
			names := make([]string, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				names[i] = tc.Name
			}
			content = "[Called tools: " + strings.Join(names, ", ") + "]"
		}
		label := "[USER]:"
		switch m.Role {
		case llm.RoleAssistant:
			label = "[ASSISTANT]:"
		case llm.RoleTool:
			name := m.Name
			if name == "" {
				name = "unknown"
			}
			label = "[TOOL_RESULT (" + name + ")]:"
		}
		lines = append(lines, label+" "+content)
	}
	return strings.Join(lines, "\n\n")
}

// extractSummaryTags is _extract_summary_tags (:995-1009): the first
// <summary>…</summary>, stripped, or the whole reply stripped.
func extractSummaryTags(text string) string {
	if i := strings.Index(text, "<summary>"); i >= 0 {
		inner := text[i+len("<summary>"):]
		if j := strings.Index(inner, "</summary>"); j >= 0 {
			return pyjson.Strip(inner[:j])
		}
	}
	return pyjson.Strip(text)
}
