package prompt

import (
	"strings"

	"crewbench/crew/pyjson"
	"crewbench/crew/toolschema"
)

// descriptionMarker starts the authored text in an old composite description.
const descriptionMarker = "Tool Description:"

// AuthoredDescription strips an old "Tool Name: …\nTool Arguments: …\nTool
// Description:" composite prefix from a description, keeping only the text
// after its last marker.
func AuthoredDescription(desc string) string {
	if !strings.HasPrefix(strings.TrimSpace(desc), "Tool Name:") {
		return desc
	}
	if i := strings.LastIndex(desc, descriptionMarker); i >= 0 {
		return strings.TrimSpace(desc[i+len(descriptionMarker):])
	}
	return desc
}

// DescribeTool is a tool's composite block in the ReAct prompt
// (format_description_for_llm).
func DescribeTool(llmName string, schema *pyjson.Object, description string) string {
	return "Tool Name: " + llmName + "\nTool Arguments: " + toolschema.ReActArguments(schema) + "\nTool Description: " + AuthoredDescription(description)
}
