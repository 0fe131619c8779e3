package mcpconn

import (
	"strings"
	"testing"
	"time"
)

func TestParseFaultList(t *testing.T) {
	tests := []struct {
		in   string
		want []Fault
		err  string
	}{
		{"", nil, ""},
		{"  ;  ", nil, ""},
		{"is_error", []Fault{{Kind: FaultIsError}}, ""},
		{"hang,tool=get_forecast; delay,delay=2s,times=1", []Fault{{Kind: FaultHang, Tool: "get_forecast"}, {Kind: FaultDelay, Delay: 2 * time.Second, Times: 1}}, ""},
		{"drop; jsonrpc_error,code=-32000,message=a; b, c", []Fault{{Kind: FaultDrop}, {Kind: FaultJSONRPCError, Code: -32000, Message: "a; b, c"}}, ""},
		{"drop; boom", nil, `fault 2 (boom): unknown fault kind "boom"`},
		{"delay", nil, "kind delay needs delay=DURATION"},
	}
	for _, tt := range tests {
		got, err := ParseFaultList(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("%q: %+v %v", tt.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q #%d: %+v, want %+v", tt.in, i, got[i], tt.want[i])
			}
		}
	}
}

// What String writes, ParseFault reads back unchanged.
func FuzzFaultRoundTrip(f *testing.F) {
	for _, s := range []string{"is_error", "delay,delay=35s,tool=x,times=1", "jsonrpc_error,code=-1,message=m, n", "garbage,tool=a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fault, err := ParseFault(s)
		if err != nil {
			return
		}
		again, err := ParseFault(fault.String())
		if err != nil || again != fault {
			// Text that ParseFault trims (spaces around a tool name)
			// cannot come back; everything else must.
			if strings.TrimSpace(fault.Tool) == fault.Tool && !strings.ContainsAny(fault.Tool, ",=") {
				t.Fatalf("%q → %+v → %q → %+v, %v", s, fault, fault.String(), again, err)
			}
		}
	})
}
