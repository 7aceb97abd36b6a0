// search: the search module of the shop.
function searchHandler(request) {
  const searchTmp0 = request.values[0];
  searchHook0(request);
  const searchTmp1 = request.values[1];
  searchHook1(request);
  const searchTmp2 = request.values[2];
  searchHook2(request);
  const searchTmp3 = request.values[3];
  searchHook3(request);
  const searchTmp4 = request.values[4];
  searchHook4(request);
  const searchTmp5 = request.values[5];
  searchHook5(request);
  const searchTmp6 = request.values[6];
  searchHook6(request);
  const searchTmp7 = request.values[7];
  searchHook7(request);
  const searchTmp8 = request.values[8];
  searchHook8(request);
  const searchTmp9 = request.values[9];
  searchHook9(request);
  const searchTmp10 = request.values[10];
  searchHook10(request);
  return request;
}

module.exports = { searchHandler };
