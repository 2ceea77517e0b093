// hog is a tiny program for the container fault tests: `alloc` touches 256 MiB (after a short
// pause, so the engine's OOM watcher is attached), `sleep` hangs, anything else prints and exits.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "alloc":
		time.Sleep(500 * time.Millisecond)
		var keep [][]byte
		for i := 0; i < 256; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = byte(j)
			}
			keep = append(keep, b)
		}
		fmt.Println(len(keep))
	case "sleep":
		time.Sleep(300 * time.Second)
	default:
		fmt.Println("hog: hello")
	}
}
