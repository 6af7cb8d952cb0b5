package providers

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/targets"

	"github.com/google/go-cmp/cmp"
)

// cliShellWords splits a command line the way a POSIX shell does for the quoting cliRender
// produces (single quotes, double quotes without expansions, backslashes, blanks). It also
// returns every character that was outside quotes, where the shell would interpret it.
func cliShellWords(s string) (words []string, unquoted string, ok bool) {
	var cur strings.Builder
	var bare strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			bare.WriteByte(c)
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "", false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			j := strings.IndexAny(s[i+1:], "\"$`\\")
			if j < 0 || s[i+1+j] != '"' {
				return nil, "", false // our renders never need expansions inside double quotes
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			cur.WriteByte(c)
			bare.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, bare.String(), true
}

func TestCLIRender(t *testing.T) {
	t.Parallel()
	v := cliValues{Prompt: `it's "x" $(id)`, Guidelines: "", EvalID: "case-1", Attempt: 2,
		Files: []string{"/a b/c.txt", "/d/it's"}, OutputFile: "/tmp/o.json"}
	for _, tc := range []struct {
		name, tmpl, format, want string
	}{
		{"all", "run {PROMPT} {GUIDELINES} {EVAL_ID} {ATTEMPT} {FILES} {OUTPUT_FILE}", "",
			`run 'it'"'"'s "x" $(id)' '' 'case-1' '2' '/a b/c.txt' '/d/it'"'"'s' '/tmp/o.json'`},
		{"files format", "run {FILES}", "--file={path} --name {basename}",
			`run --file='/a b/c.txt' --name 'c.txt' --file='/d/it'"'"'s' --name 'it'"'"'s'`},
		{"no files renders nothing", "run {FILES}.", "", "run ."},
		{"other braces untouched", "run {lower} {Mixed} ${HOME} {UNKNOWN} {PROMPT", "", "run {lower} {Mixed} ${HOME} {UNKNOWN} {PROMPT"},
		{"values are not substituted again", "{PROMPT}", "", `'{EVAL_ID}'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vv := v
			if tc.name == "no files renders nothing" {
				vv.Files = nil
			}
			if tc.name == "values are not substituted again" {
				vv.Prompt = "{EVAL_ID}"
			}
			if got := cliRender(tc.tmpl, tc.format, vv); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// FuzzRenderTemplate: whatever the values, each placeholder becomes exactly one shell word
// holding the value (NUL bytes dropped), and nothing from a value is left unquoted. A fuzzed
// template renders like a naive replacement when every value is empty.
func FuzzRenderTemplate(f *testing.F) {
	f.Add("it's \"quoted\" $(touch x) `id` \n\t\\ ;|&<>*?~#", "id;rm -rf /", "<g>'", "/a b/c'd.txt", "{PROMPT} {FILES}")
	f.Add("", "", "", "", "")
	f.Add("'''", "\x00", "\"", "a/", "{{FILES}PROMPT}")
	f.Fuzz(func(t *testing.T, prompt, evalID, guidelines, file, tmpl string) {
		v := cliValues{Prompt: prompt, EvalID: evalID, Guidelines: guidelines, Attempt: 3, Files: []string{file, "/x"}, OutputFile: file}
		const fixed = "run {PROMPT} x{EVAL_ID}y {GUIDELINES} {ATTEMPT} {FILES} {OUTPUT_FILE}"
		out := cliRender(fixed, "--f={path} {basename}", v)
		words, bare, ok := cliShellWords(out)
		if !ok {
			t.Fatalf("unbalanced quoting: %s", out)
		}
		nul := func(s string) string { return strings.ReplaceAll(s, "\x00", "") }
		want := []string{"run", nul(prompt), "x" + nul(evalID) + "y", nul(guidelines), "3",
			"--f=" + nul(file), nul(filepath.Base(file)), "--f=/x", "x", nul(file)}
		if diff := cmp.Diff(want, words); diff != "" {
			t.Fatalf("words (-want +got):\n%s\nrendered: %s", diff, out)
		}
		for _, c := range bare {
			if !strings.ContainsRune("run xy-f= ", c) {
				t.Fatalf("value character %q outside quotes in %s", c, out)
			}
		}
		if first, again := cliRender(tmpl, "", v), cliRender(tmpl, "", v); first != again {
			t.Fatal("render is not deterministic")
		}
		naive := tmpl
		for _, r := range []struct{ tok, val string }{
			{"{PROMPT}", "''"}, {"{PROMPT_FILE}", "''"}, {"{GUIDELINES}", "''"}, {"{EVAL_ID}", "''"}, {"{ATTEMPT}", "'0'"}, {"{OUTPUT_FILE}", "''"}, {"{FILES}", ""},
		} {
			naive = strings.ReplaceAll(naive, r.tok, r.val)
		}
		if got := cliRender(tmpl, "", cliValues{}); got != naive && !cliFormsToken(tmpl) {
			t.Fatalf("render %q = %q, want %q", tmpl, got, naive)
		}
	})
}

// cliFormsToken reports templates where deleting {FILES} joins text into a new placeholder,
// which naive repeated replacement would then substitute.
func cliFormsToken(tmpl string) bool {
	joined := strings.ReplaceAll(tmpl, "{FILES}", "")
	return len(targets.CLIPlaceholder.FindAllString(joined, -1)) != len(targets.CLIPlaceholder.FindAllString(tmpl, -1))-strings.Count(tmpl, "{FILES}")
}
