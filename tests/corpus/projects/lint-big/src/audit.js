// audit: the audit module of the shop.
function auditHandler(request) {
  const auditTmp0 = request.values[0];
  auditHook0(request);
  const auditTmp1 = request.values[1];
  auditHook1(request);
  const auditTmp2 = request.values[2];
  auditHook2(request);
  const auditTmp3 = request.values[3];
  auditHook3(request);
  const auditTmp4 = request.values[4];
  auditHook4(request);
  const auditTmp5 = request.values[5];
  auditHook5(request);
  const auditTmp6 = request.values[6];
  auditHook6(request);
  const auditTmp7 = request.values[7];
  auditHook7(request);
  const auditTmp8 = request.values[8];
  auditHook8(request);
  const auditTmp9 = request.values[9];
  auditHook9(request);
  const auditTmp10 = request.values[10];
  auditHook10(request);
  return request;
}

module.exports = { auditHandler };
