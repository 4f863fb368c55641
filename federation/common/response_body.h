// A whole answer's body, as both cpprestsdk clients (the Kubernetes one and etcd's) read it.
#pragma once
#include <cpprest/http_msg.h>
#include <string>

namespace fedhpa {

// The body of `response`, read on the calling thread once all of it has arrived.
// http_response::extract_utf8string() would read it in a task continuation scheduled on
// cpprestsdk's pool: one more thread hand-off (a wake-up and a context switch on each side) per
// request. Throws web::http::http_exception when the body cannot be read (a reset connection).
std::string bodyOf(const web::http::http_response& response);

}  // namespace fedhpa
