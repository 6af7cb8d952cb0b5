package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeBoth writes tc after a sibling element inside two levels, once with encoding/xml
// and once with writeTestcase, and returns both outputs.
func encodeBoth(t *testing.T, tc junitTestcase) (want, got string) {
	t.Helper()
	run := func(hand bool) string {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		enc := xml.NewEncoder(w)
		enc.Indent("", "  ")
		a, b := xml.StartElement{Name: xml.Name{Local: "testsuites"}}, xml.StartElement{Name: xml.Name{Local: "testsuite"}}
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(enc.EncodeToken(a))
		must(enc.EncodeToken(b))
		must(enc.EncodeElement(&junitProperties{Property: []junitProperty{{"k", "v"}}}, xml.StartElement{Name: xml.Name{Local: "properties"}}))
		if hand {
			must(enc.Flush())
			writeTestcase(w, &tc)
		} else {
			must(enc.EncodeElement(&tc, xml.StartElement{Name: xml.Name{Local: "testcase"}}))
		}
		must(xmlBody("out").encode(enc, xml.StartElement{Name: xml.Name{Local: "system-out"}}))
		must(enc.EncodeToken(b.End()))
		must(enc.EncodeToken(a.End()))
		must(enc.Flush())
		must(w.Flush())
		return buf.String()
	}
	return run(false), run(true)
}

var testcaseSeeds = []string{"plain", "", "a\"b'c&d<e>f", "tab\tnl\ncr\r", "nul\x00 esc\x1b bad\xff", "é 日本 \U0001F600 \uFFFD \uFFFE"}

func TestJUnitTestcaseWriterMatchesEncoder(t *testing.T) {
	t.Parallel()
	for i, s := range testcaseSeeds {
		for mask := range 16 {
			tc := testcaseFrom(s, testcaseSeeds[(i+1)%len(testcaseSeeds)], uint8(mask))
			want, got := encodeBoth(t, tc)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("seed %q mask %d (-encoding/xml +hand):\n%s", s, mask, diff)
			}
		}
	}
}

func testcaseFrom(a, b string, mask uint8) junitTestcase {
	tc := junitTestcase{Name: a, Classname: b, Time: "1.000"}
	if mask&1 != 0 {
		tc.Failure = &junitResult{Message: a, Type: b, Text: xmlBody(b + a)}
	}
	if mask&2 != 0 {
		tc.Error = &junitResult{Message: b, Text: xmlBody(a)}
	}
	if mask&4 != 0 {
		tc.Skipped = &junitResult{Message: a, Type: "skipped"}
	}
	if mask&8 != 0 {
		tc.SystemOut = xmlBody(a + "\n" + b)
	}
	return tc
}

func FuzzJUnitTestcaseWriter(f *testing.F) {
	for _, s := range testcaseSeeds {
		f.Add(s, "x", uint8(15))
	}
	f.Fuzz(func(t *testing.T, a, b string, mask uint8) {
		want, got := encodeBoth(t, testcaseFrom(a, b, mask))
		if want != got {
			t.Fatalf("(-encoding/xml +hand):\n%s", cmp.Diff(want, got))
		}
	})
}
