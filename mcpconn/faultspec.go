package mcpconn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FaultKinds are the fault kinds in the order help texts list them.
var FaultKinds = []FaultKind{FaultDelay, FaultHang, FaultJSONRPCError, FaultIsError, FaultDrop, FaultGarbage}

// FaultSyntax is the text form ParseFault reads, for help and errors.
const FaultSyntax = "KIND[,tool=NAME][,times=N][,delay=DUR][,code=N][,message=TEXT]"

// ParseFault reads one fault in its text form (FaultSyntax), as
// `--fault SERVER=…` and the workbench's re-run form take it: KIND is one
// of FaultKinds; message= takes the rest of the text, commas included.
func ParseFault(s string) (Fault, error) {
	var f Fault
	kind, rest, _ := strings.Cut(s, ",")
	kind = strings.TrimSpace(kind)
	for _, k := range FaultKinds {
		if string(k) == kind {
			f.Kind = k
		}
	}
	if f.Kind == "" {
		names := make([]string, len(FaultKinds))
		for i, k := range FaultKinds {
			names[i] = string(k)
		}
		return Fault{}, fmt.Errorf("unknown fault kind %q (kinds: %s)", kind, strings.Join(names, ", "))
	}
	seen := map[string]bool{}
	for rest != "" {
		var part string
		if strings.HasPrefix(strings.TrimSpace(rest), "message=") {
			part, rest = strings.TrimSpace(rest), ""
		} else {
			part, rest, _ = strings.Cut(rest, ",")
		}
		key, val, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if key != "message" {
			val = strings.TrimSpace(val)
		}
		if !ok || key == "" {
			return Fault{}, fmt.Errorf("%q is not key=value", part)
		}
		if seen[key] {
			return Fault{}, fmt.Errorf("%s given twice", key)
		}
		seen[key] = true
		switch key {
		case "tool":
			f.Tool = val
		case "times":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return Fault{}, fmt.Errorf("times=%q: want a whole number ≥ 0 (0: every call)", val)
			}
			f.Times = n
		case "delay":
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return Fault{}, fmt.Errorf("delay=%q: want a duration such as 500ms or 35s", val)
			}
			f.Delay = d
		case "code":
			n, err := strconv.Atoi(val)
			if err != nil {
				return Fault{}, fmt.Errorf("code=%q: want a JSON-RPC error code such as -32603", val)
			}
			f.Code = n
		case "message":
			f.Message = val
		default:
			return Fault{}, fmt.Errorf("unknown key %q (keys: tool, times, delay, code, message)", key)
		}
	}
	if f.Kind == FaultDelay && f.Delay == 0 {
		return Fault{}, errors.New("kind delay needs delay=DURATION")
	}
	if f.Kind != FaultDelay && f.Delay != 0 {
		return Fault{}, errors.New("delay= only goes with kind delay")
	}
	return f, nil
}

// ParseFaultList reads faults separated by ";" (blank text: none). A
// message= takes the rest of the text, so a fault with a message comes
// last.
func ParseFaultList(s string) ([]Fault, error) {
	var out []Fault
	for strings.TrimSpace(s) != "" {
		part := s
		s = ""
		if i := strings.Index(part, ";"); i >= 0 && (!strings.Contains(part, "message=") || i < strings.Index(part, "message=")) {
			part, s = part[:i], part[i+1:]
		}
		if strings.TrimSpace(part) == "" {
			continue
		}
		f, err := ParseFault(part)
		if err != nil {
			return nil, fmt.Errorf("fault %d (%s): %w", len(out)+1, strings.TrimSpace(part), err)
		}
		out = append(out, f)
	}
	return out, nil
}

// String is the fault in the text form ParseFault reads.
func (f Fault) String() string {
	parts := []string{string(f.Kind)}
	if f.Tool != "" {
		parts = append(parts, "tool="+f.Tool)
	}
	if f.Times > 0 {
		parts = append(parts, "times="+strconv.Itoa(f.Times))
	}
	if f.Delay > 0 {
		parts = append(parts, "delay="+f.Delay.String())
	}
	if f.Code != 0 {
		parts = append(parts, "code="+strconv.Itoa(f.Code))
	}
	if f.Message != "" {
		parts = append(parts, "message="+f.Message)
	}
	return strings.Join(parts, ",")
}
