package gittree

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// An object is read no further than its header's size: a stream that
// inflates past it (a zlib bomb behind a small declared size) and a size
// over the limit are refused, and an honest object reads whole.
func TestObjectBytesBounded(t *testing.T) {
	blob := func(content string, size int64) plumbing.EncodedObject {
		obj := &plumbing.MemoryObject{}
		obj.SetType(plumbing.BlobObject)
		if _, err := obj.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
		obj.SetSize(size)
		return obj
	}
	if data, err := objectBytes(blob("hello world", 11)); err != nil || string(data) != "hello world" {
		t.Fatalf("honest object: %q, %v", data, err)
	}
	if _, err := objectBytes(blob("hello world", 5)); err == nil || !strings.Contains(err.Error(), "not the 5 its header declares") {
		t.Fatalf("a stream longer than its size: %v", err)
	}
	if _, err := objectBytes(blob("x", maxObjectSize+1)); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("a size over the limit: %v", err)
	}
}
