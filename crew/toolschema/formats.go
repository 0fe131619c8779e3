package toolschema

import "crewbench/crew/pyjson"

// formatSchemas is CrewAI's FORMAT_TYPE_MAP (utilities/pydantic_schema_utils.py:694-719,
// applied in _json_schema_to_pydantic_field at :1030-1050): a property's
// string format replaces its type by a Pydantic type, and the model's JSON
// schema then carries that type's schema (Pydantic 2.11-2.12, the range
// CrewAI 1.15.17 pins) instead of the property's own. None of these types
// subclasses str, so the str-constraint branch (:1052-1058) never applies:
// minLength, maxLength and pattern are not in the schema (they stay in the
// enriched description, built from the raw property).
//
// Keys are in Pydantic's sorted order. Left out, so still plain strings,
// are the entries whose schema is not certain here: "email" (EmailStr needs
// the optional email-validator package), "base64" (a Field inside an
// Annotated inside Optional), "json-string" (Json's contentSchema then
// meets the strict pass) and "multi-host-uri" (a union of two equal
// schemas).
var formatSchemas = map[string][]any{
	"binary":          {"format", "binary", "type", "string"}, // StrictBytes: bytes_schema, ser_json_bytes="utf8"
	"date":            {"format", "date", "type", "string"},
	"time":            {"format", "time", "type", "string"},
	"date-time":       {"format", "date-time", "type", "string"},
	"duration":        {"format", "duration", "type", "string"}, // timedelta, ser_json_timedelta="iso8601"
	"directory-path":  {"format", "directory-path", "type", "string"},
	"file-path":       {"format", "file-path", "type", "string"},
	"path":            {"format", "path", "type", "string"}, // NewPath
	"ipv4":            {"format", "ipv4", "type", "string"},
	"ipv6":            {"format", "ipv6", "type", "string"},
	"ipvanyaddress":   {"format", "ipvanyaddress", "type", "string"},
	"ipvanyinterface": {"format", "ipvanyinterface", "type", "string"},
	"ipvanynetwork":   {"format", "ipvanynetwork", "type", "string"},
	// SecretStr, or SecretBytes when writeOnly: both update their inner
	// schema with type, writeOnly and format "password".
	"password": {"format", "password", "type", "string", "writeOnly", true},
	// AnyUrl (and FileUrl): url_schema gives minLength 1; HttpUrl (a
	// one-element scheme ["http"]) adds its max_length 2083, see uriSchema.
	"uri":   {"format", "uri", "minLength", pyjson.Int(1), "type", "string"},
	"uuid":  {"format", "uuid", "type", "string"},
	"uuid1": {"format", "uuid1", "type", "string"}, // UuidVersion rewrites the format
	"uuid3": {"format", "uuid3", "type", "string"},
	"uuid4": {"format", "uuid4", "type", "string"},
	"uuid5": {"format", "uuid5", "type", "string"},
}

// formatType is the mapped type of a property whose format CrewAI maps, or
// nil. It applies where the property's own type is a string, an enum (the
// Literal is replaced, as CrewAI replaces type_) or absent; a format on a
// number, list, object or type list is left as it was.
func formatType(s *pyjson.Object, t *Type) *Type {
	if t.Nullable || (t.Kind != KindString && t.Kind != KindLiteral && t.Kind != KindAny) {
		return nil
	}
	f, _ := s.Get("format")
	fs, _ := f.(string)
	kv, ok := formatSchemas[fs]
	if !ok {
		return nil
	}
	schema := pyjson.ObjectOf(kv...)
	if fs == "uri" && isHTTPScheme(s) {
		schema = pyjson.ObjectOf("format", "uri", "maxLength", pyjson.Int(2083), "minLength", pyjson.Int(1), "type", "string")
	}
	return &Type{Kind: KindString, Format: fs, mapped: schema}
}

// isHTTPScheme is CrewAI's HttpUrl test: "scheme" is exactly ["http"].
func isHTTPScheme(s *pyjson.Object) bool {
	v, _ := s.Get("scheme")
	l, _ := v.([]any)
	return len(l) == 1 && l[0] == "http"
}
