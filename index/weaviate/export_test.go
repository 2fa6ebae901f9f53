package weaviate

import "time"

// ObjectUUID is objectUUID, for tests that read objects by id.
var ObjectUUID = objectUUID

// F32Bytes is f32Bytes, for tests that write objects themselves.
var F32Bytes = f32Bytes

// Settle is settle, for its test; SetSettleWait shortens its backoff.
var Settle = settle

func SetSettleWait(d time.Duration) func() {
	old := settleWait
	settleWait = d
	return func() { settleWait = old }
}

// PushAttempts is how many times settle tries.
const PushAttempts = pushAttempts
