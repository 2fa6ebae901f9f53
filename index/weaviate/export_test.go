package weaviate

// ObjectUUID is objectUUID, for tests that read objects by id.
var ObjectUUID = objectUUID

// F32Bytes is f32Bytes, for tests that write objects themselves.
var F32Bytes = f32Bytes
