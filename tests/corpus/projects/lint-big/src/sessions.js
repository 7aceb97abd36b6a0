// sessions: the sessions module of the shop.
function sessionsHandler(request) {
  const sessionsTmp0 = request.values[0];
  sessionsHook0(request);
  const sessionsTmp1 = request.values[1];
  sessionsHook1(request);
  const sessionsTmp2 = request.values[2];
  sessionsHook2(request);
  const sessionsTmp3 = request.values[3];
  sessionsHook3(request);
  const sessionsTmp4 = request.values[4];
  sessionsHook4(request);
  const sessionsTmp5 = request.values[5];
  sessionsHook5(request);
  const sessionsTmp6 = request.values[6];
  sessionsHook6(request);
  const sessionsTmp7 = request.values[7];
  sessionsHook7(request);
  const sessionsTmp8 = request.values[8];
  sessionsHook8(request);
  const sessionsTmp9 = request.values[9];
  sessionsHook9(request);
  const sessionsTmp10 = request.values[10];
  sessionsHook10(request);
  return request;
}

module.exports = { sessionsHandler };
