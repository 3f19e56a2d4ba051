package runtime

import "github.com/resgen/resgen/runtime/wire"

// File is a file part of a multipart body: what the caller passes to a
// method whose body has a file property.
type File = wire.File
