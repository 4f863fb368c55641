#include "federation/common/response_body.h"

#include <pplx/pplxtasks.h>

namespace fedhpa {

std::string bodyOf(const web::http::http_response& response) {
  const auto message = response._get_impl();
  pplx::create_task(message->_get_data_available()).get();
  return message->extract_utf8string(true);
}

}  // namespace fedhpa
