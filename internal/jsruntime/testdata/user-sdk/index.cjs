exports.definePromptTemplate = () => console.log('USER-SDK cjs');
exports.defineCodeJudge = exports.definePromptTemplate;
