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

// TestMain, in a child started by TestAdvised, prints whether the memory
// of a fresh heap allocation (of pages of its own, where the heap grows)
// carries the hg (MADV_HUGEPAGE) VmFlag.
func TestMain(m *testing.M) {
	if os.Getenv("HUGEHEAP_CHILD") == "1" {
		if os.Getenv("HUGEHEAP_AGAIN") == "1" {
			Again()
		}
		p := uintptr(unsafe.Pointer(new([probeBytes]byte)))
		fmt.Println(advised(p))
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
		{[]string{"call", "-C", "."}, "", "true"},
		{[]string{"serve"}, "", "false"},
		{[]string{"call"}, "GODEBUG=disablethp=1", "false"},
		{[]string{"call", "-C", "."}, "HUGEHEAP_AGAIN=1", "true"},
		{[]string{"serve"}, "HUGEHEAP_AGAIN=1", "false"},
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
