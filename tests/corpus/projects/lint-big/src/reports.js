// reports: the reports module of the shop.
function reportsHandler(request) {
  const reportsTmp0 = request.values[0];
  reportsHook0(request);
  const reportsTmp1 = request.values[1];
  reportsHook1(request);
  const reportsTmp2 = request.values[2];
  reportsHook2(request);
  const reportsTmp3 = request.values[3];
  reportsHook3(request);
  const reportsTmp4 = request.values[4];
  reportsHook4(request);
  const reportsTmp5 = request.values[5];
  reportsHook5(request);
  const reportsTmp6 = request.values[6];
  reportsHook6(request);
  const reportsTmp7 = request.values[7];
  reportsHook7(request);
  const reportsTmp8 = request.values[8];
  reportsHook8(request);
  const reportsTmp9 = request.values[9];
  reportsHook9(request);
  const reportsTmp10 = request.values[10];
  reportsHook10(request);
  return request;
}

module.exports = { reportsHandler };
