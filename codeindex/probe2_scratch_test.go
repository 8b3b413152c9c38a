package codeindex

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

func TestProbeUpdate(t *testing.T) {
	files := strings.Fields(os.Getenv("PROBE"))
	if len(files) == 0 {
		t.Skip()
	}
	runtime.LockOSThread()
	ix := emptyIndex(t)
	f, _ := os.Create("/tmp/upd.prof")
	for _, p := range files {
		text, _ := os.ReadFile(p)
		name := "x" + p[strings.LastIndex(p, "."):]
		lines := strings.SplitAfter(string(text), "\n")
		ix.UpdateBuffer(name, 1, string(text))
		if p == files[0] {
			pprof.StartCPUProfile(f)
		}
		for i := range 100 {
			ed := append([]string(nil), lines...)
			ed[len(lines)/2] = fmt.Sprintf("%s edit %d\n", LanguageFor(name).syn.lineComments[0], i) + ed[len(lines)/2]
			ix.UpdateBuffer(name, int32(i+2), strings.Join(ed, ""))
		}
		if p == files[0] {
			pprof.StopCPUProfile()
		}
		ix.CloseBuffer(name)
	}
}
