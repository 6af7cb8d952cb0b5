package suite

import (
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

func TestScalarJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"yes", `"yes"`}, {"no", `"no"`}, {"on", `"on"`}, {"2025-01-01", `"2025-01-01"`}, {"1_000", `"1_000"`},
		{"0b101", `"0b101"`}, {"true", "true"}, {"False", "false"}, {"~", "null"}, {"null", "null"}, {"", "null"},
		{"42", "42"}, {"-7", "-7"}, {"+7", "7"}, {"007", "7"}, {"0", "0"}, {"-0", "0"}, {"0o17", "15"}, {"0x1F", "31"},
		{"1.50", "1.5"}, {"1e3", "1000"}, {".5", "0.5"}, {"1.", "1"}, {"-.inf", "null"}, {".NaN", "null"},
		{"1e21", "1e+21"}, {"1.5e-7", "1.5e-7"}, {"0.000001", "0.000001"}, {"123456789012345678901234", "123456789012345678901234"},
		{"'42'", `"42"`}, {"!!str 42", `"42"`}, {"!!int \"5\"", "5"}, {"!custom 5", `"5"`}, {"\"a\\u0001<&>\\u2028\"", "\"a\\u0001<&>\u2028\""},
		{"e", `"e"`}, {".", `"."`}, {"1e", `"1e"`}, {"+", `"+"`}, {"0x", `"0x"`}, {"--1", `"--1"`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			t.Parallel()
			var doc yaml.Node
			if err := yaml.Load([]byte("v: "+tt.src+"\n"), &doc); err != nil {
				t.Fatal(err)
			}
			got, err := ToJSON(doc.Content[0].Content[1])
			if err != nil || string(got) != tt.want {
				t.Errorf("toJSON(%s) = %s, %v; want %s", tt.src, got, err, tt.want)
			}
		})
	}
}
