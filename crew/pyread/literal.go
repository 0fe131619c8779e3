package pyread

import (
	"errors"
	"strconv"
	"strings"

	"crewbench/crew/pyjson"
)

// errNotLiteral is LiteralEval's one failure: Python raises ValueError
// (malformed node) or SyntaxError, and CrewAI only cares that it failed.
var errNotLiteral = errors.New("invalid syntax")

// maxLiteralDepth is Python's limit of nested brackets (the tokenizer's
// MAXLEVEL): deeper input does not parse.
const maxLiteralDepth = 200

// LiteralEval is ast.literal_eval for the literal forms that can appear in
// tool arguments: dicts, lists, tuples (as lists), str (all quote forms,
// prefixes r/u/b, adjacent concatenation), int (with _ and 0x/0o/0b), float,
// True, False, None and a sign on a number. Values are pyjson's: *Object,
// []any, string, Number, bool and nil. Dict keys become strings the way
// json.dumps writes them (1 → "1", True → "true", None → "null").
func LiteralEval(s string) (any, error) {
	s = strings.TrimLeft(s, " \t") // as literal_eval does
	if strings.HasSuffix(strings.TrimRight(s, " \t\f\r\n"), "\\") {
		return nil, errNotLiteral // a line continuation into the end of input
	}
	toks := Tokenize(s, "")
	p := &Parser{Src: s, Toks: toks, DepthLeft: maxLiteralDepth}
	e := p.Expr()
	if p.Malformed {
		return nil, errNotLiteral
	}
	for ; p.At < len(toks); p.At++ {
		if k := toks[p.At].Kind; k != TokNewline && k != TokEOF {
			return nil, errNotLiteral
		}
	}
	return literalValue(e)
}

func literalValue(e *Expr) (any, error) {
	switch e.Kind {
	case String:
		for _, part := range e.Parts {
			if part.FString || part.BadEscape {
				return nil, errNotLiteral
			}
		}
		return e.Str, nil
	case Number:
		return literalNumber(e.Str)
	case Bool:
		return e.Bool, nil
	case None:
		return nil, nil
	case List, Tuple:
		out := make([]any, 0, len(e.Items))
		for _, it := range e.Items {
			v, err := literalValue(it)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case Dict:
		o := pyjson.NewObject()
		for i, k := range e.Keys {
			key, err := literalKey(k)
			if err != nil {
				return nil, err
			}
			v, err := literalValue(e.Items[i])
			if err != nil {
				return nil, err
			}
			o.Set(key, v)
		}
		return o, nil
	}
	return nil, errNotLiteral
}

// literalKey is a dict key as json.dumps writes it: a string as it is, a
// number, bool or None as its JSON text; anything else cannot be a key.
func literalKey(k *Expr) (string, error) {
	v, err := literalValue(k)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case pyjson.Number, bool, nil:
		return pyjson.Dumps(v), nil
	}
	return "", errNotLiteral
}

// literalNumber converts a number literal, sign included: ints stay exact
// (hex, octal and binary become decimal), floats go through float().
func literalNumber(lit string) (any, error) {
	sign := ""
	if strings.HasPrefix(lit, "-") {
		sign, lit = "-", lit[1:]
	}
	lit = strings.ReplaceAll(lit, "_", "")
	low := strings.ToLower(lit)
	if strings.HasPrefix(low, "0x") || strings.HasPrefix(low, "0o") || strings.HasPrefix(low, "0b") {
		n, err := strconv.ParseInt(lit, 0, 64)
		if err != nil {
			return nil, errNotLiteral
		}
		return pyjson.Number(sign + strconv.FormatInt(n, 10)), nil
	}
	if lit == "" {
		return nil, errNotLiteral
	}
	if !strings.ContainsAny(low, ".e") {
		for _, c := range lit {
			if c < '0' || c > '9' {
				return nil, errNotLiteral
			}
		}
		return pyjson.Number(sign + lit), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, errNotLiteral
		}
	}
	if sign == "-" {
		f = -f
	}
	return pyjson.Float(f), nil
}
