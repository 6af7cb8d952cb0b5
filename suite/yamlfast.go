package suite

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	yaml "go.yaml.in/yaml/v4"
)

// fastYAML parses the block-style subset of YAML that eval files are written in (block mappings
// and sequences, one-line plain and quoted scalars, literal and folded blocks, comments) in one
// pass, building the same positioned yaml.Node tree as go.yaml.in/yaml/v4 without its
// per-token allocations, which dominated the loading of large suites. Comments are dropped:
// the loader never reads them. Anything outside the subset, or anything it is not sure the
// library reads the same way, makes it give up (ok false) and the caller parses the file with
// the library, which owns every error message and position, so diagnostics are unchanged.
type fastYAML struct {
	src   string // the whole document; plain and simple quoted values are substrings of it
	i     int    // offset of the current line
	end   int    // offset of the current line's '\n'
	line  int    // 1-based number of the current line
	depth int

	nodes []yaml.Node  // free nodes, handed out in chunks
	ptrs  []*yaml.Node // free room for Content slices
	// Nodes and pointers handed out so far (sizes of lazy entries).
	nNodes, nPtrs int
	stack         []*yaml.Node // children of the collections being parsed
	buf           []byte       // scratch for block and escaped scalars
	doc           *yaml.Node   // set once the tree is complete
	fail          bool         // the document left the subset
	lazy          *yfLazy      // set when the root's case lists are parsed lazily
}

// yfLazy holds the case lists of an eval file parsed by parseYAMLFastLazy: their sequence
// nodes have no Content; item builds each entry's tree on demand, so a large file's cases
// can be converted one at a time without its whole tree alive at once.
type yfLazy struct {
	p     *fastYAML
	lists map[*yaml.Node]*yfList
}

// yfList is a lazily parsed sequence: its column and where each entry starts.
type yfList struct {
	col   int
	items []yfItem
}

// yfItem is where a sequence entry's '-' is (line start offset, line number, offset) and how
// many nodes and Content pointers its tree takes.
type yfItem struct{ i, line, off, nodes, ptrs int }

// list returns the lazy list whose sequence node is n, or nil.
func (z *yfLazy) list(n *yaml.Node) *yfList {
	if z == nil {
		return nil
	}
	return z.lists[n]
}

// item builds the tree of entry k of list l. The first pass accepted the same text, so the
// parse cannot fail; should it, the entry reads as null and the loader reports the case.
func (z *yfLazy) item(l *yfList, k int) *yaml.Node {
	p, it := z.p, l.items[k]
	p.i, p.line, p.fail, p.depth = it.i, it.line, false, 0
	p.lazy = nil // nested "cases" keys are ordinary here
	defer func() { p.lazy = z }()
	// The entry's tree gets memory of its own: shared chunks would chain every case's tree
	// to its neighbours' and keep them all alive until the last is converted.
	p.nodes, p.ptrs = make([]yaml.Node, it.nodes), make([]*yaml.Node, it.ptrs)
	p.setLine()
	if n := p.entry(it.off, l.col); n != nil && !p.fail {
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: it.line, Column: it.off + 2}
}

// rewind gives back the nodes and pointers taken since nodes and ptrs were the free room,
// when they came from the same chunk (a dropped lazy entry's tree).
func (p *fastYAML) rewind(nodes []yaml.Node, ptrs []*yaml.Node) {
	if len(p.nodes) > 0 && len(nodes) > 0 && &nodes[:cap(nodes)][cap(nodes)-1] == &p.nodes[:cap(p.nodes)][cap(p.nodes)-1] {
		clear(nodes[:len(nodes)-len(p.nodes)])
		p.nodes = nodes
	}
	if len(p.ptrs) > 0 && len(ptrs) > 0 && &ptrs[:cap(ptrs)][cap(ptrs)-1] == &p.ptrs[:cap(p.ptrs)][cap(p.ptrs)-1] {
		clear(ptrs[:len(ptrs)-len(p.ptrs)])
		p.ptrs = ptrs
	}
}

// Bounds that keep the fast path to ordinary files; anything larger goes to the library.
const (
	yfMaxDepth  = 100
	yfMaxKeyLen = 512 // the library gives up on implicit keys past 1024 characters
	yfNodeChunk = 512
	yfPtrChunk  = 2048
)

// parseYAMLFast returns the document node of src, or ok false when src is outside the subset.
func parseYAMLFast(src []byte) (*yaml.Node, bool) {
	text, ok := yfText(src, false)
	if !ok {
		return nil, false
	}
	p := &fastYAML{src: text, line: 1}
	p.setLine()
	p.document()
	if p.fail {
		return nil, false
	}
	return p.doc, true
}

// parseYAMLFastLazy is parseYAMLFast for an eval file: the block sequences under the root's
// case list keys are left without Content and built entry by entry through the returned
// yfLazy. The text of src is shared, not copied: src must not change while the tree or a
// string from it is in use.
func parseYAMLFastLazy(src []byte) (*yaml.Node, *yfLazy, bool) {
	text, ok := yfText(src, true)
	if !ok {
		return nil, nil, false
	}
	p := &fastYAML{src: text, line: 1}
	p.lazy = &yfLazy{p: p, lists: map[*yaml.Node]*yfList{}}
	p.setLine()
	p.document()
	if p.fail {
		return nil, nil, false
	}
	return p.doc, p.lazy, true
}

// yfCheckText accepts only text that needs no reader-level handling beyond CRLF line breaks
// (crlf: some are there): UTF-8 without a BOM, no other carriage returns, no tabs or other
// control characters, no characters YAML 1.1 counts as line breaks (NEL, LS, PS), non-empty
// and ending with a line break.
func yfCheckText(src []byte) (ok, crlf bool) {
	if len(src) == 0 || src[len(src)-1] != '\n' {
		return false, false
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == '\r' && src[i+1] == '\n' { // src ends with '\n', so i+1 is in range
				crlf = true
			} else if (c < 0x20 && c != '\n') || c == 0x7f {
				return false, false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return false, false
		case r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff,
			r >= 0xd800 && r < 0xe000, r == 0xfffe, r == 0xffff:
			return false, false
		}
		i += n
	}
	return true, crlf
}

// yfText returns the text to parse: src itself (shared when share is set, else copied), or
// with CRLF breaks made LF, which changes no value or position the library reports (a break
// is one break; values never hold the raw characters of one).
func yfText(src []byte, share bool) (string, bool) {
	ok, crlf := yfCheckText(src)
	switch {
	case !ok:
		return "", false
	case crlf:
		norm := bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		return unsafe.String(&norm[0], len(norm)), true
	case share:
		return unsafe.String(&src[0], len(src)), true
	}
	return string(src), true
}

// setLine finds the end of the line starting at p.i.
func (p *fastYAML) setLine() {
	if p.i >= len(p.src) {
		p.end = p.i
		return
	}
	j := strings.IndexByte(p.src[p.i:], '\n')
	p.end = p.i + j // the text ends with '\n', so j >= 0
}

func (p *fastYAML) eof() bool { return p.i >= len(p.src) }

// next moves to the following line.
func (p *fastYAML) next() {
	p.i = p.end + 1
	p.line++
	p.setLine()
}

// cur is the current line without its break.
func (p *fastYAML) cur() string { return p.src[p.i:p.end] }

// indent counts the leading spaces of the current line.
func (p *fastYAML) indent() int {
	s := p.cur()
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

// col is the 1-based column (in characters) of byte offset off of the current line.
func (p *fastYAML) col(off int) int {
	s := p.src[p.i : p.i+off]
	for k := 0; k < len(s); k++ {
		if s[k] >= utf8.RuneSelf {
			return utf8.RuneCountInString(s) + 1
		}
	}
	return off + 1
}

// skipBlank moves past blank and comment lines; false at the end of the text. Lines that start
// a document or directive are outside the subset.
func (p *fastYAML) skipBlank() bool {
	for !p.eof() {
		s := p.cur()
		if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") || strings.HasPrefix(s, "%") {
			p.fail = true
			return false
		}
		n := p.indent()
		if n < len(s) && s[n] != '#' {
			return true
		}
		p.next()
	}
	return false
}

func (p *fastYAML) node(kind yaml.Kind, tag, value string, line, col int) *yaml.Node {
	if len(p.nodes) == 0 {
		p.nodes = make([]yaml.Node, yfNodeChunk)
	}
	n := &p.nodes[0]
	p.nodes = p.nodes[1:]
	p.nNodes++
	n.Kind, n.Tag, n.Value, n.Line, n.Column = kind, tag, value, line, col
	return n
}

// content moves the children pushed since mark into a Content slice of their own.
func (p *fastYAML) content(mark int) []*yaml.Node {
	k := len(p.stack) - mark
	if k == 0 {
		return nil // as the library leaves an empty flow collection
	}
	if k > len(p.ptrs) {
		p.ptrs = make([]*yaml.Node, max(yfPtrChunk, k))
	}
	out := p.ptrs[:k:k]
	p.ptrs = p.ptrs[k:]
	p.nPtrs += k
	copy(out, p.stack[mark:])
	clear(p.stack[mark:])
	p.stack = p.stack[:mark]
	return out
}

func (p *fastYAML) document() {
	if !p.skipBlank() {
		p.fail = true // empty documents and markers: the library's cases
		return
	}
	n := p.indent()
	root := p.block(n, -1)
	if p.fail || root.Kind == yaml.ScalarNode {
		p.fail = true
		return
	}
	if p.skipBlank() || p.fail {
		p.fail = true
		return
	}
	doc := p.node(yaml.DocumentNode, "", "", root.Line, root.Column)
	p.stack = append(p.stack, root)
	doc.Content = p.content(0)
	p.doc = doc
}

// isEntry reports whether a sequence entry ("-" then a blank) starts at offset off.
func (p *fastYAML) isEntry(off int) bool {
	s := p.cur()
	return off < len(s) && s[off] == '-' && (off+1 == len(s) || s[off+1] == ' ')
}

// block parses the node that starts at byte offset off of the current line (a line's first
// significant text, or what follows "- "). parent is the indentation of the collection it
// belongs to (-1 for the root). On return the current line is the next significant one.
func (p *fastYAML) block(off, parent int) *yaml.Node {
	if p.depth++; p.depth > yfMaxDepth {
		p.fail = true
		return nil
	}
	defer func() { p.depth-- }()
	if p.isEntry(off) {
		return p.sequence(off, false, nil)
	}
	if k, after := p.key(off); k != nil {
		return p.mapping(off, k, after)
	}
	if p.fail {
		return nil
	}
	return p.scalar(off, parent)
}

// sequence parses a block sequence whose entries start at offset col (an ASCII prefix, so the
// offset is the column). indentless is a sequence at its parent mapping's indentation, which
// ends at the first line at that indentation that is not an entry. With a lazy list (the
// eval file's case list) each entry is checked and its position kept, but its tree is
// dropped: yfLazy.item builds it again when the loader wants it.
func (p *fastYAML) sequence(col int, indentless bool, lazy *yfList) *yaml.Node {
	seq := p.node(yaml.SequenceNode, "!!seq", "", p.line, col+1)
	mark := len(p.stack)
	off := col
	for {
		if lazy != nil {
			at := yfItem{i: p.i, line: p.line, off: off}
			nodes, ptrs, nn, np := p.nodes, p.ptrs, p.nNodes, p.nPtrs
			if p.entry(off, col); p.fail {
				return nil
			}
			at.nodes, at.ptrs = p.nNodes-nn, p.nPtrs-np
			p.rewind(nodes, ptrs)
			lazy.items = append(lazy.items, at)
		} else {
			item := p.entry(off, col)
			if p.fail {
				return nil
			}
			p.stack = append(p.stack, item)
		}
		if p.eof() {
			break
		}
		n := p.indent()
		if n < col {
			break
		}
		if n > col {
			p.fail = true
			return nil
		}
		if !p.isEntry(n) {
			if indentless {
				break
			}
			p.fail = true
			return nil
		}
		off = n
	}
	if lazy != nil {
		lazy.col = col
		p.lazy.lists[seq] = lazy
		return seq
	}
	seq.Content = p.content(mark)
	return seq
}

// entry parses the sequence entry whose '-' is at offset off; col is the sequence's column.
func (p *fastYAML) entry(off, col int) *yaml.Node {
	s := p.cur()
	o := yfSpaces(s, off+1)
	if o < len(s) && s[o] != '#' {
		return p.block(o, col)
	}
	line, c := p.line, off+2
	p.next()
	if p.skipBlank() && p.indent() > col {
		return p.block(p.indent(), col)
	}
	if p.fail {
		return nil
	}
	return p.node(yaml.ScalarNode, "!!null", "", line, c)
}

// mapping parses a block mapping whose first key k starts at offset off; after is the offset
// just past that key's ':'.
func (p *fastYAML) mapping(off int, k *yaml.Node, after int) *yaml.Node {
	col := off // keys start a line or follow "- ", so the prefix is ASCII
	m := p.node(yaml.MappingNode, "!!map", "", p.line, col+1)
	mark := len(p.stack)
	for {
		var lazy *yfList
		if p.lazy != nil && p.depth == 1 && k.Kind == yaml.ScalarNode {
			switch k.Value {
			case "evalcases", "cases", "eval_cases": // caseListKeys
				lazy = &yfList{}
			}
		}
		v := p.value(after, col, lazy)
		if p.fail {
			return nil
		}
		p.stack = append(p.stack, k, v)
		if p.eof() {
			break
		}
		n := p.indent()
		if n < col {
			break
		}
		if n > col {
			p.fail = true
			return nil
		}
		if k, after = p.key(n); k == nil {
			p.fail = true
			return nil
		}
	}
	m.Content = p.content(mark)
	return m
}

// value parses a mapping value that starts after the key's ':' at offset off; col is the
// mapping's indentation. A block sequence there is parsed lazily when lazy is set.
func (p *fastYAML) value(off, col int, lazy *yfList) *yaml.Node {
	s := p.cur()
	o := off
	for o < len(s) && s[o] == ' ' {
		o++
	}
	if o < len(s) && s[o] != '#' {
		if p.isEntry(o) {
			p.fail = true // "key: - x" is an error
			return nil
		}
		return p.scalar(o, col)
	}
	line, c := p.line, p.col(off)
	p.next()
	if p.skipBlank() {
		n := p.indent()
		if lazy != nil && n >= col && p.isEntry(n) {
			if n > col { // as block would
				p.depth++
				defer func() { p.depth-- }()
			}
			return p.sequence(n, n == col, lazy)
		}
		if n > col {
			return p.block(n, col)
		}
		if n == col && p.isEntry(n) {
			return p.sequence(n, true, nil)
		}
	}
	if p.fail {
		return nil
	}
	return p.node(yaml.ScalarNode, "!!null", "", line, c)
}

// key parses a mapping key at offset off: a one-line plain or quoted scalar followed by ':' and
// a blank. It returns nil when the text there is not a key (p.fail is set when it cannot be
// anything in the subset).
func (p *fastYAML) key(off int) (*yaml.Node, int) {
	s := p.cur()
	switch c := s[off]; c {
	case '\'', '"':
		v, style, end := p.quoted(off)
		if end < 0 {
			return nil, 0
		}
		j := end
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) && s[j] == ':' && (j+1 == len(s) || s[j+1] == ' ') {
			if j-off > yfMaxKeyLen {
				p.fail = true
				return nil, 0
			}
			k := p.node(yaml.ScalarNode, "!!str", v, p.line, p.col(off))
			k.Style = style
			return k, j + 1
		}
		return nil, 0
	}
	if !plainStart(s, off) {
		return nil, 0
	}
	for j := off; j < len(s); j++ {
		switch s[j] {
		case ':':
			if j+1 == len(s) || s[j+1] == ' ' {
				if j-off > yfMaxKeyLen {
					p.fail = true
					return nil, 0
				}
				v := strings.TrimRight(s[off:j], " ")
				tag := p.resolve(v)
				if p.fail {
					return nil, 0
				}
				return p.node(yaml.ScalarNode, tag, p.src[p.i+off:p.i+off+len(v)], p.line, p.col(off)), j + 1
			}
		case '#':
			if s[j-1] == ' ' {
				return nil, 0
			}
		}
	}
	return nil, 0
}

// plainStart reports whether a plain scalar may start at offset off (conservatively: no
// indicator characters, and '-' only before a non-blank).
func plainStart(s string, off int) bool {
	switch s[off] {
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-':
		return off+1 < len(s) && s[off+1] != ' '
	}
	return true
}

// scalar parses a scalar that starts at offset off of the current line and is not a key;
// parent is the indentation of its collection. Plain and quoted scalars must end on their
// line (continuation lines are outside the subset).
func (p *fastYAML) scalar(off, parent int) *yaml.Node {
	s := p.cur()
	line, c := p.line, p.col(off)
	var n *yaml.Node
	switch s[off] {
	case '|', '>':
		return p.blockScalar(off, parent)
	case '\'', '"', '[', '{':
		end := -1
		if s[off] == '[' || s[off] == '{' {
			n, end = p.flow(off)
		} else {
			var v string
			var style yaml.Style
			if v, style, end = p.quoted(off); end >= 0 {
				n = p.node(yaml.ScalarNode, "!!str", v, line, c)
				n.Style = style
			}
		}
		if end < 0 || p.fail {
			p.fail = true
			return nil
		}
		j := yfSpaces(s, end)
		if j < len(s) && (s[j] != '#' || j == end) {
			p.fail = true
			return nil
		}
	default:
		if !plainStart(s, off) {
			p.fail = true
			return nil
		}
		e := len(s)
		for j := off; j < len(s); j++ {
			if s[j] == ':' && (j+1 == len(s) || s[j+1] == ' ') {
				p.fail = true // a key where a value belongs
				return nil
			}
			if s[j] == '#' && s[j-1] == ' ' {
				e = j
				break
			}
		}
		v := strings.TrimRight(s[off:e], " ")
		tag := p.resolve(v)
		if p.fail {
			return nil
		}
		n = p.node(yaml.ScalarNode, tag, p.src[p.i+off:p.i+off+len(v)], line, c)
	}
	p.next()
	if p.skipBlank() && p.indent() > parent {
		p.fail = true // a continuation line, or content the library rejects
	}
	if p.fail {
		return nil
	}
	return n
}

// quoted reads a one-line quoted scalar at offset off. end is the offset past the closing
// quote, or -1 when the scalar is outside the subset (continues on the next line, unusual
// escapes).
func (p *fastYAML) quoted(off int) (string, yaml.Style, int) {
	s := p.cur()
	base := p.i
	if s[off] == '\'' {
		simple := true
		for j := off + 1; j < len(s); j++ {
			if s[j] != '\'' {
				continue
			}
			if j+1 < len(s) && s[j+1] == '\'' {
				simple = false
				j++
				continue
			}
			if simple {
				return p.src[base+off+1 : base+j], yaml.SingleQuotedStyle, j + 1
			}
			return strings.ReplaceAll(s[off+1:j], "''", "'"), yaml.SingleQuotedStyle, j + 1
		}
		return "", 0, -1
	}
	j := off + 1
	for j < len(s) && s[j] != '"' && s[j] != '\\' {
		j++
	}
	if j == len(s) {
		return "", 0, -1
	}
	if s[j] == '"' {
		return p.src[base+off+1 : base+j], yaml.DoubleQuotedStyle, j + 1
	}
	b := append(p.buf[:0], s[off+1:j]...)
	for j < len(s) {
		c := s[j]
		if c == '"' {
			p.buf = b
			return string(b), yaml.DoubleQuotedStyle, j + 1
		}
		if c != '\\' {
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(s) {
			return "", 0, -1 // an escaped line break
		}
		j += 2
		switch e := s[j-1]; e {
		case '0':
			b = append(b, 0)
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'v':
			b = append(b, '\v')
		case 'f':
			b = append(b, '\f')
		case 'r':
			b = append(b, '\r')
		case 'e':
			b = append(b, 0x1b)
		case ' ', '"', '/', '\\':
			b = append(b, e)
		case 'x', 'u', 'U':
			w := 2
			if e == 'u' {
				w = 4
			} else if e == 'U' {
				w = 8
			}
			if j+w > len(s) {
				return "", 0, -1
			}
			r, err := strconv.ParseUint(s[j:j+w], 16, 32)
			if err != nil || r >= 0xd800 && r < 0xe000 || r > 0x10ffff {
				return "", 0, -1
			}
			b = utf8.AppendRune(b, rune(r))
			j += w
		default:
			return "", 0, -1
		}
	}
	p.buf = b
	return "", 0, -1
}

// yamlLibraryOnly makes parseYAML skip the fast path (tests compare both; set it only from
// tests that are not parallel).
var yamlLibraryOnly bool

// yamlFastVerify, set by tests, sees every tree the fast path returns with its source.
var yamlFastVerify func(src []byte, doc *yaml.Node)

// parseEvalYAML parses an eval file read for this load alone (src is not changed afterwards):
// the fast path with lazy case lists, else the library.
func (l *loader) parseEvalYAML(src []byte) (*yaml.Node, *yfLazy) {
	if !yamlLibraryOnly {
		if doc, lazy, ok := parseYAMLFastLazy(src); ok {
			if yamlFastVerify != nil {
				if full, ok := parseYAMLFast(src); ok {
					yamlFastVerify(src, full)
				}
			}
			return doc, lazy
		}
	}
	return l.parseYAMLLibrary(src), nil
}

// fastYAMLDoc is parseYAML's fast path: the document node, or ok false to use the library.
func fastYAMLDoc(src []byte) (*yaml.Node, bool) {
	if yamlLibraryOnly {
		return nil, false
	}
	doc, ok := parseYAMLFast(src)
	if ok && yamlFastVerify != nil {
		yamlFastVerify(src, doc)
	}
	return doc, ok
}
