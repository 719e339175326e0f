package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary frames, split from the fuzzer's bytes at
// '|' and either sent as they are or re-signed with the key (so that the
// fuzzer reaches the JSON decoding behind the signature check). Parse must
// never panic; a message it accepts must carry msg_id and msg_type, and a
// message whose signature does not match must be rejected as such.
func FuzzParse(f *testing.F) {
	good := frames(key, header, `{}`, `{}`, `{"code":"1+1","silent":false}`)
	f.Add(bytes.Join(good, []byte("|")), false)
	f.Add([]byte(`id|<IDS|MSG>|sig|{"msg_id":"a","msg_type":"b"}|{}|{}|{}`), true)
	f.Add([]byte(`<IDS|MSG>|||||`), true)
	f.Add([]byte(`x|y|z`), false)
	f.Add([]byte(`<IDS|MSG>|00|{"msg_id":1}|[]|null|"s"`), true)
	f.Fuzz(func(t *testing.T, data []byte, sign bool) {
		fr := bytes.Split(data, []byte("|"))
		// Split breaks the delimiter "<IDS|MSG>" itself: join it back.
		var joined [][]byte
		for i := 0; i < len(fr); i++ {
			if string(fr[i]) == "<IDS" && i+1 < len(fr) && string(fr[i+1]) == "MSG>" {
				joined = append(joined, []byte(Delimiter))
				i++
				continue
			}
			joined = append(joined, fr[i])
		}
		d := -1
		for i, f := range joined {
			if string(f) == Delimiter {
				d = i
				break
			}
		}
		if sign && d >= 0 && len(joined) >= d+6 {
			joined[d+1] = []byte(Sign(key, joined[d+2:d+6]...))
		}
		m, err := Parse(joined, key)
		if err != nil {
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FrameError", err, err)
			}
			return
		}
		if m.Header.MsgID == "" || m.Header.MsgType == "" || m.Content == nil || m.Metadata == nil {
			t.Fatalf("accepted an incomplete message: %+v", m)
		}
		if !sign && d >= 0 && len(joined) >= d+6 && !strings.EqualFold(string(joined[d+1]), Sign(key, joined[d+2:d+6]...)) {
			t.Fatalf("accepted a message whose signature does not match")
		}
	})
}
