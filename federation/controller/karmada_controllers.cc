#include "federation/controller/karmada_controllers.h"

#include "federation/controller/hpa_reconciler.h"

namespace fedhpa::controller {

using clusters::json;

KarmadaControllers::KarmadaControllers(clusters::KubeClient& federation, clusters::SharedInformers& informers,
                                       EventRecorder& events, TimeSource& time, KarmadaOptions options)
    : federatedHpaQueue_(time),
      cronQueue_(time),
      federatedHpas_(informers.informer(kFederatedHpas, enqueueing(federatedHpaQueue_))),
      cronFederatedHpas_(informers.informer(kCronFederatedHpas, enqueueing(cronQueue_))),
      // A federated HPA's change concerns the FederatedHPA of its name (its owner, or one it
      // conflicts with by name) and any other in its namespace (which may scale the same target).
      hpas_(informers.informer(kHpas,
            [this] {
              auto enqueue = [this](const json& hpa) {
                for (const auto& key : federatedHpas_.keysInNamespace(metaField(hpa, "namespace"))) federatedHpaQueue_.add(key);
              };
              return clusters::InformerHandlers{enqueue, [enqueue](const json&, const json& now) { enqueue(now); }, enqueue};
            }())),
      federatedHpaReconciler_({federation, federatedHpas_, hpas_,
                               [this](const std::string& ns) { return hpas_.listNamespace(ns); }, events, time}),
      cronReconciler_({federation, cronFederatedHpas_, events, time, options.cronCatchUpWindow}),
      runtime_("FederatedHPA and CronFederatedHPA controllers",
               [this] {
                 return waitForSync({&federatedHpas_, &cronFederatedHpas_, &hpas_}, [this] { return runtime_.stopping(); });
               },
               {{"FederatedHPA", &federatedHpaQueue_, [this](const std::string& key) { federatedHpaReconciler_.reconcile(key); }},
                {"CronFederatedHPA", &cronQueue_, [this](const std::string& key) { cronReconciler_.reconcile(key); }}},
               {{options.cronTick, [this] {
                   for (const auto& key : cronFederatedHpas_.keys()) cronQueue_.addResync(key);
                 }}}) {}

}  // namespace fedhpa::controller
