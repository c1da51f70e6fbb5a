package server

import (
	"fmt"
	"sync"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// encoded is a message already in wire form (see chunks.go). rawCodec
// sends it as it is, and gives its buffer back to pool once gRPC has
// written it (pool nil: the buffer is not pooled, for messages sent more
// than once).
type encoded struct {
	buf  *[]byte
	pool mem.BufferPool
}

// rawCodec is gRPC's protobuf codec for this server, plus encoded
// messages.
type rawCodec struct{}

// Name is "proto": the codec replaces the default one for this server.
func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case encoded:
		return mem.BufferSlice{mem.NewBuffer(m.buf, m.pool)}, nil
	case proto.Message:
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return nil, fmt.Errorf("server: cannot encode %T", v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("server: cannot decode into %T", v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return proto.Unmarshal(buf.ReadOnlyData(), m)
}

// responsePool recycles the buffers of ReadRows responses. Unlike gRPC's
// pools it does not clear them: they are written from the start.
type responsePool struct{ p sync.Pool }

var respPool = &responsePool{}

// Get returns a buffer of length n, with room for a typical response.
func (r *responsePool) Get(n int) *[]byte {
	if b, ok := r.p.Get().(*[]byte); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, max(n, responseBytes+responseBytes/4))
	return &b
}

// Put gives a buffer back.
func (r *responsePool) Put(b *[]byte) { r.p.Put(b) }
