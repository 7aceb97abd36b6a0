function travelMinutes(distanceKm) {
  return Math.ceil((distanceKm / cruiseSpeed) * 60);
}

function fare(stops) {
  return stops * 2.5;
}

module.exports = { travelMinutes, fare };
