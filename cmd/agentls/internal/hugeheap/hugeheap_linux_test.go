package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestMain, in a child started by TestAdvised, prints whether three pieces
// of the heap carry the hg (MADV_HUGEPAGE) VmFlag: the first memory the
// runtime allocated (os.Args, made while it starts, before any package
// init), a fresh allocation, and one from a chunk mapped after the start
// (the heap grown by 8 MiB).
func TestMain(m *testing.M) {
	if os.Getenv("HUGEHEAP_CHILD") == "1" {
		first := uintptr(unsafe.Pointer(unsafe.SliceData(os.Args)))
		fresh := uintptr(unsafe.Pointer(new([128 << 10]byte)))
		grown := make([]byte, 8<<20)
		fmt.Println(advised(first), advised(fresh), advised(uintptr(unsafe.Pointer(&grown[len(grown)-1]))))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// advised reports whether /proc/self/smaps gives the mapping holding p the
// hg flag.
func advised(p uintptr) bool {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok && !strings.HasSuffix(line, ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uintptr(a) <= p && p < uintptr(b)
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line+" ", " hg ")
		}
	}
	return false
}

func TestAdvised(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"call", "-C", "."}, "", "true true true"},
		{[]string{"call"}, "GODEBUG=madvdontneed=1,disablethp=1", "false false false"},
		{[]string{"serve"}, "", "false false false"},
		{[]string{"-C", ".", "call"}, "", "false false false"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), "HUGEHEAP_CHILD=1", tc.env)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("%v %s: heap advised %s, want %s", tc.args, tc.env, got, tc.want)
		}
	}
}
