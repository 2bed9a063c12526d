// bindings.hpp — the session class of the attention module's binding (bindings.cpp), shared with the
// benchmark verbs (bindings_bench.cpp), which fill a session's cache directly.
#pragma once

#include <emscripten/val.h>

#include <memory>

#include "attn/kv_cache.hpp"

namespace attn_js {

using emscripten::val;

// createSession(spec): a KV-cache session (attn::Session). Every check is the core's.
class JsSession {
 public:
  explicit JsSession(std::unique_ptr<attn::Session> session) : session_(std::move(session)) {}
  static val create(val spec);  // a RawSession, or the error

  val append(val x);
  void reset() { session_->reset(); }
  val truncate(val n);
  double length() const { return double(session_->length()); }
  double cache_bytes() const { return session_->cache_bytes(); }
  double max_len() const { return double(session_->max_len()); }
  val shape() const;
  attn::Session& session() { return *session_; }

 private:
  std::unique_ptr<attn::Session> session_;
};

}  // namespace attn_js
