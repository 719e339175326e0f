package wire

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

var key = []byte("0123456789abcdef")

// frames returns a well-formed signed message with the given parts.
func frames(k []byte, header, parent, meta, content string) [][]byte {
	parts := [][]byte{[]byte(header), []byte(parent), []byte(meta), []byte(content)}
	out := [][]byte{[]byte("client-id"), []byte(Delimiter), []byte(Sign(k, parts...))}
	return append(out, parts...)
}

const header = `{"msg_id":"m1","msg_type":"execute_request","session":"s","username":"u","version":"5.3","date":""}`

func TestParseGood(t *testing.T) {
	m, err := Parse(frames(key, header, `{}`, `{}`, `{"code":"1+1","silent":false}`), key)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.MsgID != "m1" || m.Header.MsgType != "execute_request" || len(m.Identities) != 1 {
		t.Errorf("decoded %+v", m)
	}
	if code, ok := String(m.Content, "code"); !ok || code != "1+1" {
		t.Errorf("code = %q, %v", code, ok)
	}
	if Bool(m.Content, "silent", true) || !Bool(m.Content, "store_history", true) {
		t.Error("Bool: wrong value or default")
	}
	// Signing off: an empty key accepts any signature frame.
	f := frames(nil, header, `{}`, `{}`, `{}`)
	f[2] = []byte("anything")
	if _, err := Parse(f, nil); err != nil {
		t.Errorf("unsigned message with an empty key: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	good := func() [][]byte { return frames(key, header, `{}`, `{}`, `{"code":"1"}`) }
	tamper := good()
	tamper[6] = []byte(`{"code":"2"}`)
	wrongKey := frames([]byte("another key"), header, `{}`, `{}`, `{"code":"1"}`)
	noHex := good()
	noHex[2] = []byte("zz")
	truncated := good()
	truncated[2] = truncated[2][:10]
	for _, c := range []struct {
		name   string
		frames [][]byte
		kind   error
	}{
		{"no frames", nil, ErrFraming},
		{"no delimiter", [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e"), []byte("f"), []byte("g")}, ErrFraming},
		{"delimiter only", [][]byte{[]byte(Delimiter)}, ErrFraming},
		{"four frames after the delimiter", good()[:6], ErrFraming},
		{"tampered content", tamper, ErrSignature},
		{"wrong key", wrongKey, ErrSignature},
		{"signature not hex", noHex, ErrSignature},
		{"truncated signature", truncated, ErrSignature},
		{"empty signature", append(append([][]byte{}, good()[:2]...), append([][]byte{{}}, good()[3:]...)...), ErrSignature},
		{"header not JSON", frames(key, `not json`, `{}`, `{}`, `{}`), ErrFraming},
		{"content an array", frames(key, header, `{}`, `{}`, `[1]`), ErrFraming},
		{"content null", frames(key, header, `{}`, `{}`, `null`), ErrFraming},
		{"header without msg_type", frames(key, `{"msg_id":"x"}`, `{}`, `{}`, `{}`), ErrFraming},
		{"header without msg_id", frames(key, `{"msg_type":"kernel_info_request"}`, `{}`, `{}`, `{}`), ErrFraming},
		{"header field of the wrong type", frames(key, `{"msg_id":1,"msg_type":"x"}`, `{}`, `{}`, `{}`), ErrFraming},
	} {
		m, err := Parse(c.frames, key)
		if !errors.Is(err, c.kind) || m != nil {
			t.Errorf("%s: Parse = %v, %v; want %v", c.name, m, err, c.kind)
		}
	}
}

func TestHistory(t *testing.T) {
	var h History
	m, err := Parse(frames(key, header, `{}`, `{}`, `{}`), key)
	if err != nil {
		t.Fatal(err)
	}
	if h.Replayed(m) {
		t.Fatal("first message reported as a replay")
	}
	if !h.Replayed(m) {
		t.Fatal("identical message accepted twice")
	}
	// The same id with other content (and so another signature).
	m2, _ := Parse(frames(key, header, `{}`, `{}`, `{"code":"x"}`), key)
	if !h.Replayed(m2) {
		t.Error("a reused msg_id was accepted")
	}
	// The same id for another message type: jupyter_client's kernel
	// manager and client number their messages independently.
	other := strings.Replace(header, `"msg_type":"execute_request"`, `"msg_type":"interrupt_request"`, 1)
	if other == header {
		t.Fatal("the test header has no execute_request msg_type")
	}
	m3, err := Parse(frames(key, other, `{}`, `{}`, `{}`), key)
	if err != nil {
		t.Fatal(err)
	}
	if h.Replayed(m3) {
		t.Error("the id of an execute_request was refused for an interrupt_request")
	}
	// The history is bounded and forgets the oldest entries.
	for i := range 2 * HistorySize {
		h.add("filler" + strconv.Itoa(i))
	}
	if len(h.seen) > 2*HistorySize {
		t.Errorf("history holds %d entries, more than %d", len(h.seen), 2*HistorySize)
	}
	if h.Replayed(m) {
		t.Error("an id older than the history was still remembered")
	}
}
