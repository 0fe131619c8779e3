package toolschema

import (
	"crewbench/crew/pyjson"
)

// ArgumentChanges says, one line per change, what CrewAI's validation did
// to the LLM's arguments in on the way to sent (MCPArguments' result), for
// the Try view and `crewbench call` to show before a call: values coerced
// ("days: '2' → 2"), defaults filled ("units: default 'metric'") and nulls
// dropped ("sku: None dropped"), with dotted paths into nested objects and
// values as Python's repr, as the agent's side of CrewAI prints them.
// Values compare by their JSON text, so 2 → 2.0 (an int given for a
// float field) counts as a change. None when the arguments go out as given.
func ArgumentChanges(in, sent *pyjson.Object) []string {
	var out []string
	objectChanges("", in, sent, &out)
	return out
}

func objectChanges(prefix string, in, sent *pyjson.Object, out *[]string) {
	if in == nil {
		in = pyjson.NewObject()
	}
	if sent == nil {
		sent = pyjson.NewObject()
	}
	for _, k := range sent.Keys() {
		path := prefix + k
		sv, _ := sent.Get(k)
		iv, given := in.Get(k)
		switch {
		case !given:
			*out = append(*out, path+": default "+pyjson.Repr(sv))
		case pyjson.Dumps(iv) == pyjson.Dumps(sv):
		default:
			io, iok := iv.(*pyjson.Object)
			so, sok := sv.(*pyjson.Object)
			if iok && sok {
				objectChanges(path+".", io, so, out)
				continue
			}
			*out = append(*out, path+": "+pyjson.Repr(iv)+" → "+pyjson.Repr(sv))
		}
	}
	for _, k := range in.Keys() {
		if sent.Has(k) {
			continue
		}
		iv, _ := in.Get(k)
		if iv == nil {
			*out = append(*out, prefix+k+": None dropped")
		} else {
			*out = append(*out, prefix+k+": dropped")
		}
	}
}
