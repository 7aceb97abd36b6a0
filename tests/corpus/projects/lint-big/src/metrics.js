// metrics: the metrics module of the shop.
function metricsHandler(request) {
  const metricsTmp0 = request.values[0];
  metricsHook0(request);
  const metricsTmp1 = request.values[1];
  metricsHook1(request);
  const metricsTmp2 = request.values[2];
  metricsHook2(request);
  const metricsTmp3 = request.values[3];
  metricsHook3(request);
  const metricsTmp4 = request.values[4];
  metricsHook4(request);
  const metricsTmp5 = request.values[5];
  metricsHook5(request);
  const metricsTmp6 = request.values[6];
  metricsHook6(request);
  const metricsTmp7 = request.values[7];
  metricsHook7(request);
  const metricsTmp8 = request.values[8];
  metricsHook8(request);
  const metricsTmp9 = request.values[9];
  metricsHook9(request);
  const metricsTmp10 = request.values[10];
  metricsHook10(request);
  return request;
}

module.exports = { metricsHandler };
