package webfetch

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// The encoding of a fetched body is found as the WHATWG Encoding Standard
// and HTML say (a byte order mark, the Content-Type charset, a <meta> in
// the first 1024 bytes, else UTF-8 when the bytes are valid UTF-8 and
// windows-1252 otherwise), by the code of this file rather than by
// golang.org/x/net/html/charset: that package's index of labels
// (x/text/encoding/htmlindex, with x/text/language under it) builds its
// tables when the process starts, which every fresh `agentls call` paid
// for although few fetch a page (issue 19). lookupCharset is a switch:
// it builds nothing. TestCharsetLabels checks it against the package.

// determineEncoding returns the encoding of content (a body whose
// Content-Type header is contentType) and its WHATWG name; a nil encoding
// with the name "utf-8" for UTF-8.
func determineEncoding(content []byte, contentType string) (encoding.Encoding, string) {
	if len(content) > 1024 {
		content = content[:1024]
	}
	switch {
	case bytes.HasPrefix(content, []byte{0xfe, 0xff}):
		return lookupCharset("utf-16be")
	case bytes.HasPrefix(content, []byte{0xff, 0xfe}):
		return lookupCharset("utf-16le")
	case bytes.HasPrefix(content, []byte{0xef, 0xbb, 0xbf}):
		return lookupCharset("utf-8")
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if label, ok := params["charset"]; ok {
			if e, name := lookupCharset(label); name != "" {
				return e, name
			}
		}
	}
	if len(content) > 0 {
		if e, name := metaCharset(content); name != "" {
			return e, name
		}
	}
	// Valid UTF-8 with a byte above ASCII (a sequence cut at the end
	// aside) is UTF-8; anything else is windows-1252.
	for i := len(content) - 1; i >= 0 && i > len(content)-utf8.UTFMax; i-- {
		if content[i] < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(content[i]) {
			content = content[:i]
			break
		}
	}
	if bytes.ContainsFunc(content, func(r rune) bool { return r >= utf8.RuneSelf }) && utf8.Valid(content) {
		return nil, "utf-8"
	}
	return charmap.Windows1252, "windows-1252"
}

// metaCharset is HTML's prescan for a character encoding: the first <meta>
// that names one with a charset attribute, or with a content attribute
// beside http-equiv="content-type". UTF-16 named there means UTF-8.
func metaCharset(content []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(content))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, more := z.TagName()
			if string(tag) != "meta" {
				continue
			}
			var (
				seen       = map[string]bool{}
				pragma     bool
				needPragma = 0 // 0: unknown, 1: needed (content), 2: not needed (charset)
				enc        encoding.Encoding
				name       string
			)
			for more {
				var key, val []byte
				key, val, more = z.TagAttr()
				k := string(key)
				if seen[k] {
					continue
				}
				seen[k] = true
				v := strings.ToLower(string(val))
				switch k {
				case "http-equiv":
					pragma = pragma || v == "content-type"
				case "content":
					if name == "" {
						if label := charsetFromContent(v); label != "" {
							if enc, name = lookupCharset(label); name != "" {
								needPragma = 1
							}
						}
					}
				case "charset":
					enc, name = lookupCharset(v)
					needPragma = 2
				}
			}
			if needPragma == 0 || needPragma == 1 && !pragma {
				continue
			}
			if strings.HasPrefix(name, "utf-16") {
				enc, name = nil, "utf-8"
			}
			if name != "" {
				return enc, name
			}
		}
	}
}

// charsetFromContent extracts the encoding label from a meta content
// value (lower case), as HTML's "extracting a character encoding from a
// meta element" does: "" when there is none.
func charsetFromContent(s string) string {
	for {
		i := strings.Index(s, "charset")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i+len("charset"):], " \t\n\f\r")
		if s == "" || s[0] != '=' {
			continue // look again from here
		}
		s = strings.TrimLeft(s[1:], " \t\n\f\r")
		if s == "" {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return ""
			}
			return s[1 : 1+end]
		}
		if end := strings.IndexAny(s, " \t\n\f\r;"); end >= 0 {
			return s[:end]
		}
		return s
	}
}

// lookupCharset returns the encoding that label names in the WHATWG
// Encoding Standard and its name; "" when it names none. UTF-8 is a nil
// encoding (the body is used as it is).
func lookupCharset(label string) (encoding.Encoding, string) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8":
		return nil, "utf-8"
	case "866", "cp866", "csibm866", "ibm866":
		return charmap.CodePage866, "ibm866"
	case "csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "iso_8859-2:1987", "l2", "latin2":
		return charmap.ISO8859_2, "iso-8859-2"
	case "csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3", "iso_8859-3:1988", "l3", "latin3":
		return charmap.ISO8859_3, "iso-8859-3"
	case "csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4", "iso_8859-4:1988", "l4", "latin4":
		return charmap.ISO8859_4, "iso-8859-4"
	case "csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5", "iso88595", "iso_8859-5", "iso_8859-5:1988":
		return charmap.ISO8859_5, "iso-8859-5"
	case "arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114", "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987":
		return charmap.ISO8859_6, "iso-8859-6"
	case "csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7", "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7", "iso_8859-7:1987", "sun_eu_greek":
		return charmap.ISO8859_7, "iso-8859-7"
	case "csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e", "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8", "iso_8859-8:1988", "visual":
		return charmap.ISO8859_8, "iso-8859-8"
	case "csiso88598i", "iso-8859-8-i", "logical":
		return charmap.ISO8859_8I, "iso-8859-8-i"
	case "csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6":
		return charmap.ISO8859_10, "iso-8859-10"
	case "iso-8859-13", "iso8859-13", "iso885913":
		return charmap.ISO8859_13, "iso-8859-13"
	case "iso-8859-14", "iso8859-14", "iso885914":
		return charmap.ISO8859_14, "iso-8859-14"
	case "csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9":
		return charmap.ISO8859_15, "iso-8859-15"
	case "iso-8859-16":
		return charmap.ISO8859_16, "iso-8859-16"
	case "cskoi8r", "koi", "koi8", "koi8-r", "koi8_r":
		return charmap.KOI8R, "koi8-r"
	case "koi8-ru", "koi8-u":
		return charmap.KOI8U, "koi8-u"
	case "csmacintosh", "mac", "macintosh", "x-mac-roman":
		return charmap.Macintosh, "macintosh"
	case "dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874":
		return charmap.Windows874, "windows-874"
	case "cp1250", "windows-1250", "x-cp1250":
		return charmap.Windows1250, "windows-1250"
	case "cp1251", "windows-1251", "x-cp1251":
		return charmap.Windows1251, "windows-1251"
	case "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252":
		return charmap.Windows1252, "windows-1252"
	case "cp1253", "windows-1253", "x-cp1253":
		return charmap.Windows1253, "windows-1253"
	case "cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254":
		return charmap.Windows1254, "windows-1254"
	case "cp1255", "windows-1255", "x-cp1255":
		return charmap.Windows1255, "windows-1255"
	case "cp1256", "windows-1256", "x-cp1256":
		return charmap.Windows1256, "windows-1256"
	case "cp1257", "windows-1257", "x-cp1257":
		return charmap.Windows1257, "windows-1257"
	case "cp1258", "windows-1258", "x-cp1258":
		return charmap.Windows1258, "windows-1258"
	case "x-mac-cyrillic", "x-mac-ukrainian":
		return charmap.MacintoshCyrillic, "x-mac-cyrillic"
	case "chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk":
		return simplifiedchinese.GBK, "gbk"
	case "gb18030":
		return simplifiedchinese.GB18030, "gb18030"
	case "big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5":
		return traditionalchinese.Big5, "big5"
	case "cseucpkdfmtjapanese", "euc-jp", "x-euc-jp":
		return japanese.EUCJP, "euc-jp"
	case "csiso2022jp", "iso-2022-jp":
		return japanese.ISO2022JP, "iso-2022-jp"
	case "csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis":
		return japanese.ShiftJIS, "shift_jis"
	case "cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949":
		return korean.EUCKR, "euc-kr"
	case "csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement":
		return encoding.Replacement, "replacement"
	case "unicodefffe", "utf-16be":
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be"
	case "csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le":
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le"
	case "x-user-defined":
		return charmap.XUserDefined, "x-user-defined"
	}
	return nil, ""
}
