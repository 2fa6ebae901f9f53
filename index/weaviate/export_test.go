package weaviate

// ObjectUUID is objectUUID, for tests that read objects by id.
var ObjectUUID = objectUUID
