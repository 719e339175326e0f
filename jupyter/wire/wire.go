// Package wire decodes and checks the messages of the Jupyter messaging
// protocol (version 5) as they arrive on a kernel's ROUTER sockets, before
// the kernel acts on any of them.
//
// A message on the wire is a list of frames:
//
//	ident… | "<IDS|MSG>" | signature | header | parent_header | metadata | content | buffers…
//
// where signature is the hex HMAC-SHA256, under the connection file's key,
// of the four JSON frames that follow it. Parse rejects, with an error and
// without looking further, a message without the delimiter, with fewer
// than the five frames after it, with a signature that is not the HMAC of
// those frames (compared in constant time), or whose header, metadata or
// content is not a JSON object or whose header lacks msg_id or msg_type.
// An empty key switches signing off, as in Jupyter.
//
// History rejects a signature seen before, as ipykernel's digest history
// does, so that a captured message replayed by a third party is not acted
// on twice, and a message id seen before for the same message type; it
// remembers the last HistorySize of each. Ids are compared within a type
// because jupyter_client's kernel manager and its client sign with two
// Session objects of the same session id, whose ids count from 0 each:
// the manager's interrupt_request (interrupt_mode "message") or
// shutdown_request has the id of the client's first request.
package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// Delimiter separates the routing identities from the message.
const Delimiter = "<IDS|MSG>"

// Header is the header (and parent header) of a message.
type Header struct {
	MsgID    string `json:"msg_id"`
	Username string `json:"username"`
	Session  string `json:"session"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
	Date     string `json:"date"`
}

// Message is a checked message.
type Message struct {
	Identities   [][]byte
	Signature    string
	Header       Header
	ParentHeader Header
	Metadata     map[string]any
	Content      map[string]any
	Buffers      [][]byte
}

// Errors of Parse. A *FrameError wraps ErrFraming or ErrSignature.
var (
	ErrFraming   = errors.New("malformed message")
	ErrSignature = errors.New("invalid signature")
)

// FrameError describes a message Parse rejected.
type FrameError struct {
	Kind   error // ErrFraming or ErrSignature
	Reason string
}

func (e *FrameError) Error() string { return fmt.Sprintf("jupyter message: %v: %s", e.Kind, e.Reason) }

// Unwrap returns Kind.
func (e *FrameError) Unwrap() error { return e.Kind }

func framing(format string, args ...any) error {
	return &FrameError{Kind: ErrFraming, Reason: fmt.Sprintf(format, args...)}
}

// Sign returns the hex HMAC-SHA256 of parts under key, or "" if key is
// empty.
func Sign(key []byte, parts ...[]byte) string {
	if len(key) == 0 {
		return ""
	}
	mac := hmac.New(sha256.New, key)
	for _, p := range parts {
		mac.Write(p)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// Parse checks and decodes the frames of one message received on a
// ROUTER socket, signed with key. The framing and the signature are
// checked before any JSON is decoded.
func Parse(frames [][]byte, key []byte) (*Message, error) {
	delim := -1
	for i, f := range frames {
		if string(f) == Delimiter {
			delim = i
			break
		}
	}
	if delim < 0 {
		return nil, framing("no %s delimiter among %d frames", Delimiter, len(frames))
	}
	rest := frames[delim+1:]
	if len(rest) < 5 {
		return nil, framing("%d frames after the delimiter, want at least 5", len(rest))
	}
	sig, parts := rest[0], rest[1:5]
	if len(key) != 0 {
		got := make([]byte, hex.DecodedLen(len(sig)))
		if _, err := hex.Decode(got, sig); err != nil {
			return nil, &FrameError{Kind: ErrSignature, Reason: "signature is not hexadecimal"}
		}
		mac := hmac.New(sha256.New, key)
		for _, p := range parts {
			mac.Write(p)
		}
		if !hmac.Equal(mac.Sum(nil), got) { // constant time
			return nil, &FrameError{Kind: ErrSignature, Reason: "HMAC does not match"}
		}
	}
	m := &Message{Identities: frames[:delim], Signature: string(sig), Buffers: rest[5:]}
	if err := object(parts[0], &m.Header, "header"); err != nil {
		return nil, err
	}
	if err := object(parts[1], &m.ParentHeader, "parent_header"); err != nil {
		return nil, err
	}
	if err := object(parts[2], &m.Metadata, "metadata"); err != nil {
		return nil, err
	}
	if err := object(parts[3], &m.Content, "content"); err != nil {
		return nil, err
	}
	if m.Header.MsgID == "" || m.Header.MsgType == "" {
		return nil, framing("header without msg_id or msg_type")
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	if m.Content == nil {
		m.Content = map[string]any{}
	}
	return m, nil
}

// object decodes b, which must be a JSON object, into v.
func object(b []byte, v any, name string) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return framing("%s is not a JSON object", name)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return framing("%s: %v", name, err)
	}
	return nil
}

// HistorySize is how many message ids and signatures a History remembers.
const HistorySize = 1 << 16

// History remembers the ids and signatures of the messages accepted
// recently. The zero value is ready to use; it is not safe for
// concurrent use.
type History struct {
	seen  map[string]bool
	order []string
	next  int
}

// Replayed reports whether m's signature, or its id for its message type,
// was seen before, and otherwise records them.
func (h *History) Replayed(m *Message) bool {
	id := "id:" + m.Header.MsgType + "\x00" + m.Header.MsgID
	sig := ""
	if m.Signature != "" {
		sig = "sig:" + m.Signature
	}
	if h.seen[id] || (sig != "" && h.seen[sig]) {
		return true
	}
	h.add(id)
	if sig != "" {
		h.add(sig)
	}
	return false
}

func (h *History) add(k string) {
	if h.seen == nil {
		h.seen = make(map[string]bool)
	}
	if len(h.order) < 2*HistorySize {
		h.order = append(h.order, k)
	} else {
		delete(h.seen, h.order[h.next])
		h.order[h.next] = k
		h.next = (h.next + 1) % len(h.order)
	}
	h.seen[k] = true
}

// String returns content[key] if it is a string.
func String(content map[string]any, key string) (string, bool) {
	s, ok := content[key].(string)
	return s, ok
}

// Bool returns content[key] if it is a boolean, else def.
func Bool(content map[string]any, key string, def bool) bool {
	if b, ok := content[key].(bool); ok {
		return b
	}
	return def
}
