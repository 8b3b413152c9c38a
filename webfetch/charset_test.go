package webfetch

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// sample is every byte, then every pair of a lead byte above ASCII and a
// trail byte: enough to tell the encodings apart when decoded.
func sample() []byte {
	var b []byte
	for c := 0; c < 256; c++ {
		b = append(b, byte(c))
	}
	for lead := 0x80; lead < 256; lead += 3 {
		for trail := 0x40; trail < 256; trail += 7 {
			b = append(b, byte(lead), byte(trail), ' ')
		}
	}
	return b
}

func decodeWith(e encoding.Encoding, b []byte) string {
	if e == nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	out, err := e.NewDecoder().Bytes(b)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}

// sameEncoding says whether ours (nil: UTF-8) and theirs (from
// golang.org/x/net/html/charset, named theirName) decode b alike, as
// decode uses them (UTF-8 as it is).
func sameEncoding(ours, theirs encoding.Encoding, theirName string, b []byte) bool {
	if theirName == "utf-8" {
		theirs = nil
	}
	return decodeWith(ours, b) == decodeWith(theirs, b)
}

// TestCharsetLabels checks lookupCharset against x/net/html/charset (the
// WHATWG labels through x/text's htmlindex), which webfetch used before:
// every label of its table, each in upper case, with white space around
// and with its separators changed, and names that are no label.
func TestCharsetLabels(t *testing.T) {
	var labels []string
	for _, l := range strings.Fields(`unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8
		866 cp866 csibm866 ibm866 csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2
		csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3
		csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4
		csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988
		arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987
		csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek
		csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual
		csiso88598i iso-8859-8-i logical csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6
		iso-8859-13 iso8859-13 iso885913 iso-8859-14 iso8859-14 iso885914 csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9 iso-8859-16
		cskoi8r koi koi8 koi8-r koi8_r koi8-ru koi8-u csmacintosh mac macintosh x-mac-roman
		dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874
		cp1250 windows-1250 x-cp1250 cp1251 windows-1251 x-cp1251
		ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252
		cp1253 windows-1253 x-cp1253 cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254
		cp1255 windows-1255 x-cp1255 cp1256 windows-1256 x-cp1256 cp1257 windows-1257 x-cp1257 cp1258 windows-1258 x-cp1258
		x-mac-cyrillic x-mac-ukrainian chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030
		big5 big5-hkscs cn-big5 csbig5 x-x-big5 cseucpkdfmtjapanese euc-jp x-euc-jp csiso2022jp iso-2022-jp
		csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis
		cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 windows-949
		csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement
		unicodefffe utf-16be csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le x-user-defined`) {
		labels = append(labels, l, strings.ToUpper(l), " "+l+"\t\n", strings.ReplaceAll(l, "-", "_"), strings.ReplaceAll(l, "_", "-"),
			strings.ReplaceAll(l, "-", ""), "x-"+l, "cs"+l)
	}
	labels = append(labels, "", "utf-32", "utf-7", "iso-8859-12", "windows-1259", "latin", "shift jis", "utf 8", "ebcdic", "x-mac-greek")
	b := sample()
	known := 0
	for _, l := range labels {
		e, name := lookupCharset(l)
		theirs, theirName := charset.Lookup(l)
		if name != theirName {
			t.Errorf("label %q: name %q, x/net/html/charset says %q", l, name, theirName)
			continue
		}
		if name != "" {
			known++
		}
		if !sameEncoding(e, theirs, theirName, b) {
			t.Errorf("label %q (%s): decodes otherwise than x/net/html/charset's", l, name)
		}
	}
	if known < 219 {
		t.Errorf("only %d labels known", known)
	}
}

// TestDetermineEncoding checks determineEncoding against
// charset.DetermineEncoding on bodies with byte order marks, Content-Type
// charsets and <meta> tags of every form.
func TestDetermineEncoding(t *testing.T) {
	latin := "caf\xe9 cr\xe8me"
	pad := strings.Repeat("<!-- padding -->", 70) // past the 1024 bytes looked at
	for _, tc := range []struct{ body, contentType string }{
		{"", ""},
		{"plain ascii", "text/plain"},
		{"caf\u00e9", "text/html"},
		{"caf\u00e9\xe2\x82", "text/html"}, // a sequence cut at the end
		{latin, "text/html"},
		{latin, "text/plain; charset=ISO-8859-1"},
		{latin, "text/plain; charset=\"latin1\""},
		{latin, "text/plain; charset=bogus"},
		{latin, "text/plain; charset=utf-8"},
		{latin, "text/html; charset=utf-16"},
		{latin, "garbage;;="},
		{"\xfe\xff\x00a\x00b", "text/html; charset=iso-8859-2"},
		{"\xff\xfea\x00b\x00", ""},
		{"\xef\xbb\xbf" + latin, "text/html; charset=windows-1252"},
		{`<meta charset="windows-1252">` + latin, "text/html"},
		{`<meta charset=shift_jis>` + "\x93\xfa", "text/html"},
		{`<META CHARSET="KOI8-R">` + latin, "text/html"},
		{`<meta charset="utf-16">` + latin, "text/html"},
		{`<meta charset="utf-16le">caf` + "\u00e9", "text/html"},
		{`<meta charset="nonsense"><meta charset="iso-8859-5">` + latin, "text/html"},
		{`<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">` + "\x93\xfa", "text/html"},
		{`<meta content="text/html; charset=Shift_JIS" http-equiv="content-type">` + "\x93\xfa", "text/html"},
		{`<meta content="text/html; charset=Shift_JIS">` + latin, "text/html"},
		{`<meta http-equiv="refresh" content="text/html; charset=Shift_JIS">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="text/html; charset = 'euc-kr'">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="text/html; charset='euc-kr">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="charset;charset=big5">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="text/html; charset=">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="text/html; charset=gbk; x">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="text/html; charset=gbk" charset="euc-jp">` + latin, "text/html"},
		{`<meta charset="euc-jp" http-equiv="content-type" content="text/html; charset=gbk">` + latin, "text/html"},
		{`<meta charset="euc-jp" charset="gbk">` + latin, "text/html"},
		{`<meta http-equiv="content-type" content="x" content="text/html; charset=gbk">` + latin, "text/html"},
		{`<html><head><title>t</title><meta charset="windows-1251"></head>` + latin, "text/html"},
		{`<!-- <meta charset="windows-1251"> -->` + latin, "text/html"},
		{`<script>var s = '<meta charset="windows-1251">'</script>` + latin, "text/html"},
		{`<meta/charset="iso-8859-7"/>` + latin, "text/html"},
		{pad + `<meta charset="windows-1251">` + latin, "text/html"},
		{pad + "caf\u00e9", "text/html"},
	} {
		body := []byte(tc.body)
		e, name := determineEncoding(body, tc.contentType)
		theirs, theirName, _ := charset.DetermineEncoding(body, tc.contentType)
		if name != theirName || !sameEncoding(e, theirs, theirName, body) {
			t.Errorf("%q as %q: %s, x/net/html/charset says %s", tc.body, tc.contentType, name, theirName)
		}
	}
}

// TestCharsetPages fetches pages in Shift_JIS, windows-1252, ISO-8859-1
// and UTF-16 with a byte order mark, and one named by a <meta> tag, from a
// loopback server.
func TestCharsetPages(t *testing.T) {
	sjis := "\x93\xfa\x96\x7b\x8c\xea" // 日本語
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "<p>日本語 café</p>" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	srv := serve(t, map[string]http.HandlerFunc{
		"/sjis":   body("text/plain; charset=Shift_JIS", sjis),
		"/cp1252": body("text/plain; charset=windows-1252", "\x93caf\xe9\x94 \x80"),
		"/latin1": body("text/plain; charset=ISO-8859-1", "caf\xe9"),
		"/utf16":  body("text/html", string(utf16)),
		"/meta":   body("text/html", `<html><head><meta charset="windows-1251"></head><body><p>`+"\xcf\xf0\xe8\xe2\xe5\xf2"+`</p></body></html>`),
		"/none":   body("text/plain", "caf\xe9"),
	})
	opts := local
	opts.Format = "text"
	for _, tc := range []struct{ path, want, charset string }{
		{"/sjis", "日本語", "shift_jis"},
		{"/cp1252", "\u201ccaf\u00e9\u201d \u20ac", "windows-1252"},
		{"/latin1", "café", "windows-1252"},
		{"/utf16", "\ufeff\n日本語 café", "utf-16le"}, // the BOM stays a U+FEFF, as it did with x/net/html/charset
		{"/meta", "Привет", "windows-1251"},
		{"/none", "café", "windows-1252"},
	} {
		p, err := Fetch(context.Background(), srv.URL+tc.path, opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if strings.TrimSpace(p.Text) != tc.want || p.Charset != tc.charset {
			t.Errorf("%s: text %q charset %q, want %q %q", tc.path, p.Text, p.Charset, tc.want, tc.charset)
		}
	}
}
