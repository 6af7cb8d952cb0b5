package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// entryFormat names the layout of an entry file; another value is a miss.
const entryFormat = "agentv-cache/1"

// entry is one stored answer. Sum is the SHA-256 of Response exactly as stored: a file that was
// cut short or altered does not match and is a miss.
type entry struct {
	Format   string          `json:"format"`
	Key      string          `json:"key"`
	Sum      string          `json:"sha256"`
	Response json.RawMessage `json:"response"`
}

// storedResponse is providers.Response in a stable JSON form.
type storedResponse struct {
	Text           string          `json:"text"`
	OutputMessages []storedMessage `json:"output_messages,omitempty"`
	Usage          *storedUsage    `json:"usage,omitempty"`
	CostUSD        *float64        `json:"cost_usd,omitempty"`
	DurationMS     *float64        `json:"duration_ms,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
}

type storedUsage struct {
	Input  int64  `json:"input"`
	Output int64  `json:"output"`
	Cached *int64 `json:"cached,omitempty"`
}

type storedMessage struct {
	Role       string            `json:"role"`
	Name       string            `json:"name,omitempty"`
	Kind       suite.ContentKind `json:"kind"`
	Text       string            `json:"text,omitempty"`
	Segments   []storedSegment   `json:"segments,omitempty"`
	Structured json.RawMessage   `json:"structured,omitempty"`
	ToolCalls  json.RawMessage   `json:"tool_calls,omitempty"`
}

type storedSegment struct {
	Type      string          `json:"type"`
	Value     string          `json:"value,omitempty"`
	Path      string          `json:"path,omitempty"`
	Resolved  string          `json:"resolved,omitempty"`
	FileText  string          `json:"file_text,omitempty"`
	Guideline bool            `json:"guideline,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"`
}

func encodeEntry(key string, resp *providers.Response) ([]byte, error) {
	sr := storedResponse{Text: resp.Text, CostUSD: resp.CostUSD, DurationMS: resp.DurationMS}
	if len(resp.Metadata) > 0 {
		meta, err := json.Marshal(resp.Metadata)
		if err != nil {
			return nil, fmt.Errorf("could not encode the answer's metadata: %w", err)
		}
		sr.Metadata = meta
	}
	if u := resp.Usage; u != nil {
		sr.Usage = &storedUsage{Input: u.Input, Output: u.Output, Cached: u.Cached}
	}
	for _, m := range resp.OutputMessages {
		sm := storedMessage{Role: m.Role, Name: m.Name, Kind: m.Content.Kind, Text: m.Content.Text,
			Structured: m.Content.Structured, ToolCalls: m.ToolCalls}
		for _, sg := range m.Content.Segments {
			sm.Segments = append(sm.Segments, storedSegment(sg))
		}
		sr.OutputMessages = append(sr.OutputMessages, sm)
	}
	body, err := json.Marshal(sr)
	if err != nil {
		return nil, fmt.Errorf("could not encode the answer: %w", err)
	}
	sum := sha256.Sum256(body)
	return json.Marshal(entry{Format: entryFormat, Key: key, Sum: hex.EncodeToString(sum[:]), Response: body})
}

// decodeEntry returns the answer an entry file holds, nil when the file is not a whole entry
// of key.
func decodeEntry(b []byte, key string) *providers.Response {
	var e entry
	if json.Unmarshal(b, &e) != nil || e.Format != entryFormat || e.Key != key {
		return nil
	}
	sum := sha256.Sum256(e.Response)
	if hex.EncodeToString(sum[:]) != e.Sum {
		return nil
	}
	var sr storedResponse
	if json.Unmarshal(e.Response, &sr) != nil {
		return nil
	}
	resp := &providers.Response{Text: sr.Text, CostUSD: sr.CostUSD, DurationMS: sr.DurationMS}
	if len(sr.Metadata) > 0 {
		// Numbers as written: metadata is shown as the provider gave it.
		dec := json.NewDecoder(bytes.NewReader(sr.Metadata))
		dec.UseNumber()
		if dec.Decode(&resp.Metadata) != nil {
			return nil
		}
	}
	if u := sr.Usage; u != nil {
		resp.Usage = &providers.Usage{Input: u.Input, Output: u.Output, Cached: u.Cached}
	}
	for _, sm := range sr.OutputMessages {
		m := suite.Message{Role: sm.Role, Name: sm.Name, ToolCalls: sm.ToolCalls,
			Content: suite.Content{Kind: sm.Kind, Text: sm.Text, Structured: sm.Structured}}
		for _, sg := range sm.Segments {
			m.Content.Segments = append(m.Content.Segments, suite.Segment(sg))
		}
		resp.OutputMessages = append(resp.OutputMessages, m)
	}
	return resp
}
