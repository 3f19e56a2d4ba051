package runtime

// maxErrorBody bounds the part of an answer's body kept in its
// StatusError (and, for an undeclared status of 400 or more, the part
// read at all).
const maxErrorBody = 64 << 10
