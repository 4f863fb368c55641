// The request side of field management: who a write's manager is (?fieldManager=, else the
// User-Agent's product name, as kube-apiserver derives it), and server-side apply's PATCH
// (application/apply-patch+yaml), which creates the object when it does not exist.
#pragma once

#include <string>

#include "federation/apiserver/field_manager.h"
#include "federation/apiserver/http/http_types.h"
#include "federation/apiserver/request_info.h"
#include "federation/apiserver/resource_store.h"

namespace fedhpa::apiserver {

inline constexpr const char* kApplyPatchMediaType = "application/apply-patch+yaml";

// optionsKind names the options in a 422 ("PatchOptions"): a manager over 128 bytes or with
// unprintable characters, as kube-apiserver's ValidateFieldManager.
WriteContext writeContextOf(const http::Request& request, const std::string& apiVersion, Subresource subresource,
                            const char* optionsKind);

// force= of a patch: 422 on a patch other than apply.
bool forceOf(const http::Request& request, bool applyPatch);

http::Response serverSideApply(ResourceStore& store, const RequestInfo& info, const http::Request& request,
                               const std::string& version, Subresource subresource);

}  // namespace fedhpa::apiserver
