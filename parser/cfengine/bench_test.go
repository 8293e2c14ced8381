package cfengine

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// genPolicy writes a masterfiles-sized policy (about 72,000 lines in
// 150 files' worth of blocks) as one text.
func genPolicy(bundles int) []byte {
	var b strings.Builder
	for i := 0; i < bundles; i++ {
		fmt.Fprintf(&b, "bundle agent b%d(x)\n# @brief generated\n{\n  vars:\n    \"v\" string => \"$(x)\";\n    linux.!windows::\n      \"l\" slist => { \"a\", \"b\", concat(\"c\", \"$(v)\") };\n", i)
		b.WriteString("  files:\n    \"/tmp/f\" perms => mog(\"644\", \"root\", \"root\"), classes => if_repaired(\"r\"), handle => \"h")
		fmt.Fprintf(&b, "%d\";\n  commands:\n    r::\n      \"/bin/echo $(v)\" depends_on => { \"h%d\" }, if => \"any\";\n  reports:\n    \"done\";\n}\n\n", i, i)
		fmt.Fprintf(&b, "body perms p%d(m)\n{\n  mode => \"$(m)\";\n  !windows::\n    owners => { \"root\" };\n}\n\n", i)
	}
	return []byte(b.String())
}

func BenchmarkParseCold(b *testing.B) {
	src := genPolicy(3000)
	b.SetBytes(int64(len(src)))
	c0 := cpuTime()
	for b.Loop() {
		Parse(src)
	}
	cpu(b, c0)
}

// BenchmarkParseOneEdit re-parses the text after changing one block: the
// cache serves every other chunk.
func BenchmarkParseOneEdit(b *testing.B) {
	src := genPolicy(3000)
	p := NewParser()
	p.Parse(src)
	edited := []byte(strings.Replace(string(src), "\"done\";", "\"done!\";", 1))
	b.SetBytes(int64(len(src)))
	i := 0
	c0 := cpuTime()
	for b.Loop() {
		if i%2 == 0 {
			p.Parse(edited)
		} else {
			p.Parse(src)
		}
		i++
	}
	cpu(b, c0)
}

// cpu reports CPU time per operation: the build machine is shared, so
// wall time overstates the cost.
func cpu(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
